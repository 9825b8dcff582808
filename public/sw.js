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

// Notifications (issue 61 §5): a card to decide, or the agent speaking up while no page is open.
// The payload is what the server sent for this person: a title, a line, the page to open.
self.addEventListener('push', (event) => {
  let note = { title: 'AgentCSD', body: '', url: '/', tag: 'agentcsd' };
  try {
    note = { ...note, ...(event.data ? event.data.json() : {}) };
  } catch {
    note.body = event.data ? event.data.text() : '';
  }
  const url = new URL(note.url, self.location.origin);
  event.waitUntil(
    self.registration.showNotification(note.title, {
      body: note.body,
      tag: note.tag,
      icon: '/icons/icon-192.png',
      // Only a page of this app is ever opened from a notification.
      data: { url: url.origin === self.location.origin ? url.pathname : '/' },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url ?? '/', self.location.origin).href;
  event.waitUntil(
    (async () => {
      for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) {
        if (client.url === target && 'focus' in client) return client.focus();
      }
      return self.clients.openWindow(target);
    })(),
  );
});
