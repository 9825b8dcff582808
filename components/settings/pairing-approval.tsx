'use client';

// A stranger's pairing code, approved the safe way (issue 58 §6): who this is (a new person, or one
// already on the People page), and the persona they talk to — their own conversation of it. Putting
// them into a session that has other people is a separate step that names who is in it and asks.
import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import type { ChannelJson } from './channel-form';
import { errorText } from '@/lib/errors/error-text';

export interface PairingJson {
  code: string;
  sender: string;
  first_text: string;
  /** Paired, converses but gets no cards (an IRC identity without an account). */
  weak: boolean;
  expires_at: string;
}

export interface PairingTargets {
  sessions: { id: string; name: string; persona: string; people?: { id: string; name: string; role: string }[] }[];
  personas: string[];
  people: { id: string; name: string; role: string }[];
}

const peopleWords = (people: { name: string; role: string }[]) => people.map((person) => (person.role === 'owner' ? 'you (the owner)' : person.name)).join(', ') || 'nobody yet';

export function PairingRow({ channel, pairing, targets, onApproved }: { channel: ChannelJson; pairing: PairingJson; targets: PairingTargets; onApproved: (message: string) => void }) {
  const [who, setWho] = useState('new');
  const [role, setRole] = useState('guest');
  // The owner's pick, else the first persona — the list may arrive after this form first renders.
  const [picked, setPersona] = useState('');
  const persona = targets.personas.includes(picked) ? picked : (targets.personas[0] ?? '');
  const [sharing, setSharing] = useState(false);
  const [sessionId, setSessionId] = useState('');
  const [confirmed, setConfirmed] = useState(false);
  const [push, setPush] = useState('all');
  const [error, setError] = useState<string | null>(null);
  const shared = targets.sessions.find((session) => session.id === sessionId) ?? null;
  const ready = sharing ? shared !== null && confirmed : persona !== '';

  async function approve() {
    try {
      const whom = who === 'new' ? { role } : { person_id: who };
      const where = sharing ? { session_id: sessionId, share: true } : { persona };
      await apiFetch(`/api/channels/${channel.id}/pairings`, { method: 'POST', body: { code: pairing.code, push, ...whom, ...where } });
      onApproved(`${pairing.sender} paired${sharing ? ` into “${shared?.name}”` : `: their own conversation with ${persona}`}.`);
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  return (
    <li className="space-y-2 rounded border border-amber-300 p-2 text-sm dark:border-amber-700" data-testid="pairing">
      <p>
        <strong className="font-mono">{pairing.code}</strong> from {pairing.sender}: “{pairing.first_text}” <span className="text-xs text-zinc-500">(expires {new Date(pairing.expires_at).toLocaleTimeString()})</span>
      </p>
      {pairing.weak && (
        <p className="text-xs text-amber-700 dark:text-amber-400" data-testid="pairing-weak">
          No account on this network: nick!ident@host is all that says who this is, and anyone on the same host could take it. Paired, they can talk to the agent, but cards are never sent to them nor decided from their chat — you decide them here.
        </p>
      )}
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col text-xs">
          Who is this?
          <select className="field" value={who} onChange={(event) => setWho(event.target.value)}>
            <option value="new">a new person</option>
            {targets.people.map((person) => (
              <option key={person.id} value={person.id}>
                {person.role === 'owner' ? 'you (the owner), another app of yours' : `${person.name} (${person.role}), another app of theirs`}
              </option>
            ))}
          </select>
        </label>
        {who === 'new' && (
          <label className="flex flex-col text-xs">
            As
            <select className="field" value={role} onChange={(event) => setRole(event.target.value)}>
              <option value="guest">a guest (no shell, web or browser; you decide their cards)</option>
              <option value="trusted">trusted (decides their own cards)</option>
            </select>
          </label>
        )}
        {!sharing && (
          <label className="flex flex-col text-xs">
            Talks to
            <select className="field" value={persona} onChange={(event) => setPersona(event.target.value)}>
              {targets.personas.map((name) => (
                <option key={name} value={name}>
                  {name}, in a conversation of their own
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="flex flex-col text-xs">
          Push
          <select className="field" value={push} onChange={(event) => setPush(event.target.value)}>
            <option value="all">everything the agent says</option>
            <option value="spontaneous">spontaneous speech, task results, questions, cards</option>
            <option value="cards">approval cards and questions only</option>
          </select>
        </label>
        <button type="button" className="btn btn-primary" onClick={approve} disabled={!ready}>
          Approve {pairing.code}
        </button>
      </div>
      <button type="button" className="text-xs text-indigo-700 hover:underline dark:text-indigo-300" aria-expanded={sharing} onClick={() => (setSharing(!sharing), setConfirmed(false))}>
        {sharing ? 'Give them their own conversation instead' : 'Share an existing conversation instead…'}
      </button>
      {sharing && (
        <fieldset className="space-y-1 rounded border border-zinc-200 p-2 dark:border-zinc-700" data-testid="pairing-share">
          <legend className="px-1 text-xs font-medium">Share a conversation with {pairing.sender}</legend>
          <label className="flex flex-col text-xs">
            Session
            <select className="field" value={sessionId} onChange={(event) => (setSessionId(event.target.value), setConfirmed(false))}>
              <option value="">choose a session…</option>
              {targets.sessions.map((session) => (
                <option key={session.id} value={session.id}>
                  {session.name} — with {peopleWords(session.people ?? [])}
                </option>
              ))}
            </select>
          </label>
          {shared && (
            <>
              <p className="text-xs text-amber-700 dark:text-amber-400" data-testid="pairing-share-people">
                Already in it: {peopleWords(shared.people ?? [])}. {pairing.sender} will read everything said there, be answered in it, and recall what its people remember.
              </p>
              <label className="flex items-center gap-2 text-xs">
                <input type="checkbox" checked={confirmed} onChange={(event) => setConfirmed(event.target.checked)} />
                Share “{shared.name}” with {pairing.sender}
              </label>
            </>
          )}
        </fieldset>
      )}
      <ErrorBanner message={error} />
    </li>
  );
}
