'use client';

// The moment the first invite turns sign-in on for everyone (issue 75 §2): until then every browser
// on this machine was the owner; from now on one is the owner only by the owner's passkey or link.
// This browser keeps the owner's role (a cookie for 30 days); the page walks the owner through the rest.
import { useState } from 'react';
import { makePasskey } from '@/components/web-auth/make-passkey';

const button = 'rounded-md border border-zinc-300 px-2 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800';

export function SignInTurnedOn({ ownerLink }: { ownerLink: string }) {
  const [passkey, setPasskey] = useState<'none' | 'making' | 'made'>('none');
  const [problem, setProblem] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const make = () => {
    setPasskey('making');
    setProblem(null);
    makePasskey('Owner’s device').then(
      () => setPasskey('made'),
      (caught: Error) => {
        setPasskey('none');
        setProblem(caught.message);
      },
    );
  };
  return (
    <section role="status" aria-labelledby="sign-in-on-heading" className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950" data-testid="sign-in-turned-on">
      <h3 id="sign-in-on-heading" className="font-semibold">
        Sign-in is on for everyone now
      </h3>
      <p>
        Until now every browser on this machine was you, the owner. From now on a browser is the owner only by your passkey or your owner’s link — so
        the people you invite are themselves, never you. This browser stays yours for 30 days.
      </p>
      <ol className="list-decimal space-y-2 pl-5">
        <li>
          {passkey === 'made' ? (
            <span>Your passkey is made: sign in with it from this device whenever you are asked.</span>
          ) : (
            <span className="flex flex-wrap items-center gap-2">
              Make a passkey for yourself, to sign in as the owner from here or from your phone:
              <button type="button" className={button} disabled={passkey === 'making'} onClick={make}>
                {passkey === 'making' ? 'Waiting for the browser…' : 'Make my passkey'}
              </button>
            </span>
          )}
          {problem && <span className="block text-red-700 dark:text-red-400">{problem}</span>}
        </li>
        <li>
          <span>Keep your owner’s link (it is also in the data folder’s <code>access-token</code> file, and printed at each start):</span>
          <span className="mt-1 flex gap-2">
            <input readOnly value={ownerLink} aria-label="Owner’s link" className="field w-full font-mono text-xs" onFocus={(event) => event.target.select()} />
            <button type="button" className={button} onClick={() => navigator.clipboard.writeText(ownerLink).then(() => setCopied(true), () => setProblem('The browser did not let the link be copied: select it and copy it by hand.'))}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </span>
        </li>
      </ol>
    </section>
  );
}
