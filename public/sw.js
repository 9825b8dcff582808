// AgentCSD's service worker (issue 50): keeps the app's shell — the built scripts and styles under
// /_next/static (their names change with every build) and the icons — so the installed app opens
// at once. Everything else goes to the network untouched: pages (each carries its own CSP nonce),
// /api answers, the live socket. No API answer is ever cached.
const CACHE = 'agentcsd-shell-v1';
const SHELL = /^\/(?:_next\/static\/|icons\/)/;

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !SHELL.test(url.pathname)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const kept = await cache.match(request);
      if (kept) return kept;
      const answer = await fetch(request);
      if (answer.ok && answer.type === 'basic') await cache.put(request, answer.clone());
      return answer;
    })(),
  );
});
