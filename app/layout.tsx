import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import './globals.css';

export const metadata: Metadata = {
  title: 'AgentCSD',
  description: 'Watch and shape a three-layer mind: External Dialog, Internal Dialog, Subconscious.',
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page is rendered per request so its scripts carry that request's CSP nonce
  // (lib/security/content-security-policy.ts); a prerendered page would have none.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:p-2">
          Skip to content
        </a>
        <header className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
          <nav aria-label="Main" className="mx-auto flex max-w-7xl items-center gap-6 px-4 py-3">
            <Link href="/" className="font-semibold tracking-tight">
              AgentCSD
            </Link>
            <Link href="/" className="text-sm hover:underline">
              Sessions
            </Link>
            <Link href="/personas" className="text-sm hover:underline">
              Personas
            </Link>
            <Link href="/memory" className="text-sm hover:underline">
              Memory
            </Link>
            <Link href="/people" className="text-sm hover:underline">
              People
            </Link>
            <Link href="/skills" className="text-sm hover:underline">
              Skills
            </Link>
            <Link href="/spending" className="text-sm hover:underline">
              Spending
            </Link>
            <Link href="/settings" className="text-sm hover:underline">
              Settings
            </Link>
          </nav>
        </header>
        <main id="main" className="mx-auto max-w-7xl px-4 py-6">
          {children}
        </main>
      </body>
    </html>
  );
}
