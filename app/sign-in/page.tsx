import { SignInForm } from '@/components/web-auth/sign-in-form';

export const metadata = { title: 'Sign in · AgentCSD' };

/** The page a browser that is neither signed in nor holding the owner's token lands on (issue 61 §2). */
export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  return (
    <div className="mx-auto max-w-sm space-y-5 py-8">
      <div>
        <h1 className="text-2xl font-semibold">Sign in</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Use the passkey you made from your invite — on this phone or computer, or another one nearby.</p>
      </div>
      <SignInForm next={typeof next === 'string' ? next : undefined} />
      <p className="text-xs text-zinc-600 dark:text-zinc-400">No passkey yet? Ask the owner for an invite link. The owner signs in with their own passkey, or opens their owner’s link once: it is kept in the data folder’s <code>access-token</code> file and printed at each start.</p>
    </div>
  );
}
