import { OwnerSees } from '@/components/people/owner-sees';
import { JoinForm } from '@/components/web-auth/join-form';

export const metadata = { title: 'Join · AgentCSD' };
export const dynamic = 'force-dynamic';

/** An invite link (issue 61 §1): make a passkey for the invited person on this device. */
export default async function JoinPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <div className="mx-auto max-w-sm space-y-5 py-8">
      <div>
        <h1 className="text-2xl font-semibold">You are invited</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Create a passkey on this device to sign in to the assistant&apos;s pages: your conversations, their minds, your memories and your cards. No password — your phone or computer keeps the key.
        </p>
        <OwnerSees />
      </div>
      <JoinForm token={token} />
    </div>
  );
}
