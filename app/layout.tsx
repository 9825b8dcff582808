import type { Metadata, Viewport } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { FoldingMenu } from '@/components/ui/folding-menu';
import { ServiceWorker } from '@/components/ui/service-worker';
import { SignOutButton } from '@/components/web-auth/sign-out-button';
import { pageVisitor } from '@/lib/http/page-visitor';
import './globals.css';

export const metadata: Metadata = {
  title: 'AgentCSD',
  description: 'Watch and shape a three-layer mind: External Dialog, Internal Dialog, Subconscious.',
  applicationName: 'AgentCSD',
  appleWebApp: { capable: true, title: 'AgentCSD', statusBarStyle: 'default' },
  icons: { icon: '/icons/icon-192.png', apple: '/icons/icon-192.png' },
};

export const viewport: Viewport = { themeColor: '#3730a3', width: 'device-width', initialScale: 1 };

const mainLinks = [
  ['/', 'Sessions'],
  ['/personas', 'Personas'],
  ['/memory', 'Memory'],
  ['/people', 'People'],
  ['/skills', 'Skills'],
  ['/spending', 'Spending'],
  ['/settings', 'Settings'],
] as const;

/** A signed-in person's pages (issue 61 §3): their sessions, memories, spending and devices. */
const personLinks = [
  ['/', 'Sessions'],
  ['/memory', 'Memory'],
  ['/spending', 'Spending'],
  ['/settings', 'Settings'],
] as const;

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page is rendered per request so its scripts carry that request's CSP nonce
  // (lib/security/content-security-policy.ts); a prerendered page would have none.
  await connection();
  const visitor = await pageVisitor();
  const links = visitor.kind === 'owner' ? mainLinks : visitor.kind === 'person' ? personLinks : [];
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:p-2">
          Skip to content
        </a>
        <header className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
          <div className="mx-auto flex max-w-7xl items-center gap-6 px-4 py-3">
            <Link href="/" className="font-semibold tracking-tight">
              AgentCSD
            </Link>
            {/* Wide screens: the links in a row. A phone: a menu that folds away (no script needed). */}
            <nav aria-label="Main" className="hidden flex-wrap items-center gap-x-6 gap-y-1 md:flex">
              {links.map(([href, label]) => (
                <Link key={href} href={href} className="text-sm hover:underline">
                  {label}
                </Link>
              ))}
            </nav>
            {visitor.kind === 'person' && (
              <p className="ml-auto hidden items-center gap-3 text-sm md:flex">
                <span>{visitor.person.name}</span>
                <SignOutButton />
              </p>
            )}
            {links.length > 0 && (
            <FoldingMenu className="relative ml-auto md:hidden" summary="Menu" summaryClassName="cursor-pointer rounded-md border border-zinc-300 px-3 py-2 text-sm dark:border-zinc-700">
              <nav aria-label="Main (menu)" className="absolute right-0 z-20 mt-2 w-48 rounded-md border border-zinc-200 bg-white p-2 shadow-lg dark:border-zinc-700 dark:bg-zinc-900">
                <ul>
                  {links.map(([href, label]) => (
                    <li key={href}>
                      <Link href={href} className="block rounded px-3 py-3 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800">
                        {label}
                      </Link>
                    </li>
                  ))}
                </ul>
                {/* A person's phone: who is signed in here, and signing out (issue 75 §6). */}
                {visitor.kind === 'person' && (
                  <div className="mt-2 space-y-2 border-t border-zinc-200 px-3 pt-3 text-sm dark:border-zinc-700">
                    <p>Signed in as {visitor.person.name}</p>
                    <SignOutButton />
                  </div>
                )}
              </nav>
            </FoldingMenu>
            )}
          </div>
        </header>
        <main id="main" className="mx-auto max-w-7xl px-4 py-6">
          {children}
        </main>
        {/* Development serves changing modules: a cached shell would serve stale code. */}
        <ServiceWorker enabled={process.env.NODE_ENV === 'production'} />
      </body>
    </html>
  );
}
