'use client';

// One person whole, on the People page (issue 58 §6, ARCHITECTURE §26): their sessions, door keys,
// memories, today's messages and spend, and what their role allows — a switch per tool trait
// widens or narrows it for them alone. What the switches mean is the rights authority's own list.
// Their quiet hours, and what of the agent's waits for them.
import Link from 'next/link';
import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { SettingsLink } from '@/components/settings/settings-link';
import { InvitePerson } from './invite-person';
import { PersonPersonas } from './person-personas';
import { PersonWeb, type PersonWebJson } from './person-web';
import { PersonQuietHours, type QuietHoursJson } from './person-quiet-hours';
import { errorText } from '@/lib/errors/error-text';

interface MayJson {
  trait: string;
  words: string;
  allowed: boolean;
  /** Differs from the role's default (the owner changed it for this person). */
  changed: boolean;
}

interface PersonDetailJson {
  person: { id: string; name: string; role: string; rights: { allow: string[]; deny: string[] } | null; limits: ({ quiet_hours?: QuietHoursJson } & Record<string, unknown>) | null };
  sessions: { id: string; name: string; persona: string; status: string; last_activity_at: string }[];
  keys: { id: string; name: string; personas: string[]; last_used_at: string | null }[];
  memories: number;
  spent_today: number;
  messages_today: { sent: number; limit: number | null };
  waiting: { messages: number; until: string | null };
  web: PersonWebJson;
  may: MayJson[];
}

/** The rights that give this trait `allowed`, the others as they are (a trait back at its role's default leaves both lists). */
function rightsWith(current: { allow: string[]; deny: string[] } | null, entry: MayJson, allowed: boolean) {
  const roleDefault = entry.allowed !== entry.changed;
  const allow = (current?.allow ?? []).filter((trait) => trait !== entry.trait);
  const deny = (current?.deny ?? []).filter((trait) => trait !== entry.trait);
  if (allowed !== roleDefault) (allowed ? allow : deny).push(entry.trait);
  return allow.length || deny.length ? { allow, deny } : null;
}

export function PersonDetail({ personId, name, onError }: { personId: string; name: string; onError: (message: string) => void }) {
  const [detail, setDetail] = useState<PersonDetailJson | null>(null);
  const load = useCallback(async () => {
    try {
      setDetail(await apiFetch<PersonDetailJson>(`/api/people/${encodeURIComponent(personId)}`));
    } catch (caught) {
      onError(errorText(caught));
    }
  }, [personId, onError]);
  useEffect(() => void load(), [load]);
  if (!detail) return null;
  const owner = detail.person.role === 'owner';
  const setTrait = async (entry: MayJson, allowed: boolean) => {
    try {
      await apiFetch(`/api/people/${encodeURIComponent(personId)}`, { method: 'PATCH', body: { rights: rightsWith(detail.person.rights, entry, allowed) } });
      await load();
    } catch (caught) {
      onError(errorText(caught));
    }
  };
  return (
    <div className="grid gap-3 text-xs md:grid-cols-2" data-testid="person-detail">
      <section aria-label={`Sessions of ${name}`}>
        <h3 className="font-medium">Conversations ({detail.sessions.length})</h3>
        <ul className="mt-1 space-y-0.5">
          {detail.sessions.length === 0 && <li className="text-zinc-500">None yet: their first message opens one.</li>}
          {detail.sessions.map((session) => (
            <li key={session.id}>
              <Link href={`/sessions/${session.id}`} className="text-indigo-700 hover:underline dark:text-indigo-300">
                {session.name}
              </Link>{' '}
              <span className="text-zinc-500">({session.status})</span>
            </li>
          ))}
        </ul>
        <h3 className="mt-2 font-medium">Door keys ({detail.keys.length})</h3>
        <ul className="mt-1 space-y-0.5">
          {detail.keys.length === 0 && <li className="text-zinc-500">None (Settings › Access makes one).</li>}
          {detail.keys.map((key) => (
            <li key={key.id}>
              {key.name} <span className="text-zinc-500">— {key.personas.join(', ')}{key.last_used_at ? `, last used ${new Date(key.last_used_at).toLocaleString()}` : ', never used'}</span>
            </li>
          ))}
        </ul>
        <p className="mt-2" data-testid="person-today">
          Today: {detail.messages_today.sent} message{detail.messages_today.sent === 1 ? '' : 's'}
          {detail.messages_today.limit !== null ? ` of ${detail.messages_today.limit}` : ''}, ${detail.spent_today.toFixed(4)} spent · {detail.memories} memor{detail.memories === 1 ? 'y' : 'ies'} from their conversations
        </p>
        {!owner && <PersonWeb personId={personId} name={name} web={detail.web} onChanged={() => void load()} onError={onError} />}
        {owner ? (
          <p className="mt-2 text-zinc-500">
            You sign in with your own passkey: <SettingsLink section="devices" />.
          </p>
        ) : (
          <InvitePerson personId={personId} name={name} onError={onError} />
        )}
        <PersonPersonas personId={personId} name={name} role={detail.person.role} limits={detail.person.limits} onSaved={() => void load()} onError={onError} />
        <PersonQuietHours
          personId={personId}
          name={name}
          limits={detail.person.limits}
          quiet={detail.person.limits?.quiet_hours ?? null}
          waiting={detail.waiting}
          onSaved={() => void load()}
          onError={onError}
        />
      </section>
      <section aria-label={`What ${name} may do`}>
        <h3 className="font-medium">What their conversations may use{owner ? ' (everything: you are the owner)' : ''}</h3>
        <ul className="mt-1 space-y-0.5">
          {detail.may.map((entry) => (
            <li key={entry.trait}>
              <label className="flex items-center gap-2">
                <input type="checkbox" checked={entry.allowed} disabled={owner} onChange={(event) => void setTrait(entry, event.target.checked)} />
                <span>
                  {entry.words}
                  {entry.changed && <span className="ml-1 rounded bg-amber-100 px-1 text-amber-800 dark:bg-amber-950 dark:text-amber-300">changed for {name}</span>}
                </span>
              </label>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
