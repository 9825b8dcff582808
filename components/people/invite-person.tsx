'use client';

// An invite to the web pages (issue 61 §1): a one-time link, good for 24 hours and shown once,
// with a QR code for a phone's camera. Opening it lets the person make a passkey and sign in.
import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { SignInTurnedOn } from './sign-in-turned-on';

interface InviteJson {
  url: string;
  expires_at: string;
  qr_svg: string;
  sign_in: { turned_on: boolean; owner_link?: string };
}

export function InvitePerson({ personId, name, onError }: { personId: string; name: string; onError: (message: string) => void }) {
  const [invite, setInvite] = useState<InviteJson | null>(null);
  const [copied, setCopied] = useState(false);
  const [ownerLink, setOwnerLink] = useState<string | null>(null);
  const make = () =>
    apiFetch<InviteJson>(`/api/people/${encodeURIComponent(personId)}/invites`, { method: 'POST', body: {} }).then(
      (made) => {
        setCopied(false);
        setInvite(made);
        if (made.sign_in.owner_link) setOwnerLink(made.sign_in.owner_link);
      },
      (caught: Error) => onError(caught.message),
    );
  return (
    <div className="mt-2 space-y-2">
      <button type="button" onClick={() => void make()} className="rounded-md border border-zinc-300 px-2 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
        {invite ? 'Make another invite' : `Invite ${name} to the web pages`}
      </button>
      {ownerLink && <SignInTurnedOn ownerLink={ownerLink} />}
      {invite && (
        <div className="flex flex-wrap items-start gap-3 rounded-md border border-indigo-200 bg-indigo-50 p-2 dark:border-indigo-900 dark:bg-indigo-950" data-testid="invite">
          {/* eslint-disable-next-line @next/next/no-img-element -- an inline SVG made by the server */}
          <img src={`data:image/svg+xml;utf8,${encodeURIComponent(invite.qr_svg)}`} alt={`QR code of the invite for ${name}`} width={140} height={140} className="bg-white" />
          <div className="min-w-0 flex-1 space-y-1">
            <p>
              Send {name} this link (shown once; good until {new Date(invite.expires_at).toLocaleString()}, for one passkey):
            </p>
            <div className="flex gap-2">
              <input readOnly value={invite.url} aria-label={`Invite link for ${name}`} className="field w-full font-mono text-xs" onFocus={(event) => event.target.select()} />
              <button
                type="button"
                className="rounded-md border border-zinc-300 px-2 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
                onClick={() => navigator.clipboard.writeText(invite.url).then(() => setCopied(true), () => onError('The browser did not let the link be copied: select it and copy it by hand.'))}
              >
                {copied ? 'Copied' : 'Copy'}
              </button>
            </div>
          </div>
        </div>
      )}
    </div>
  );
}
