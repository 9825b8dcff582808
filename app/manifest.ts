import type { MetadataRoute } from 'next';

/**
 * The web app manifest (issue 50): added to a phone's home screen, AgentCSD opens on its sessions
 * without the browser's chrome. Served at /manifest.webmanifest (without the access token: a
 * browser fetches it without cookies; it holds nothing private).
 */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: 'AgentCSD',
    short_name: 'AgentCSD',
    description: 'Watch and shape a three-layer mind: External Dialog, Internal Dialog, Subconscious.',
    id: '/',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#3730a3',
    icons: [
      { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
  };
}
