import Link from 'next/link';
import { SpendingView } from '@/components/spending/spending-view';
import { pageVisitor } from '@/lib/http/page-visitor';

export const metadata = { title: 'Spending · AgentCSD' };

export default async function SpendingPage({ searchParams }: { searchParams: Promise<{ session?: string }> }) {
  const { session } = await searchParams;
  // A signed-in person has no Settings › Spending (issue 75 §8): the owner sets the limits.
  const owner = (await pageVisitor()).kind !== 'person';
  const sessionId = session && /^[0-9a-f-]{36}$/i.test(session) ? session : undefined;
  return (
    <div className="max-w-5xl space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">{sessionId ? 'Spending of one session' : 'Spending'}</h1>
        <p className="text-sm text-zinc-500">
          What the model calls cost, from the recorded calls (a model without a known price counts its tokens only).{' '}
          {owner ? (
            <>
              Daily limits are set in{' '}
              <Link className="underline" href="/settings/spending">
                Settings › Spending
              </Link>
            </>
          ) : (
            'The owner sets the daily limits'
          )}
          {sessionId && (
            <>
              {' '}
              · <Link className="underline" href={`/sessions/${sessionId}`}>back to the session</Link> · <Link className="underline" href="/spending">all sessions</Link>
            </>
          )}
          .
        </p>
      </div>
      <SpendingView sessionId={sessionId} owner={owner} />
    </div>
  );
}
