'use client';

import { useEffect } from 'react';

/** Registers the app shell's service worker (public/sw.js) once the page has loaded; production builds only. */
export function ServiceWorker({ enabled }: { enabled: boolean }) {
  useEffect(() => {
    if (!enabled || !('serviceWorker' in navigator)) return;
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: Error) => console.warn(`[app] the service worker was not registered: ${error.message}`));
  }, [enabled]);
  return null;
}
