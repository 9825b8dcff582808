'use client';

// The People page (issues 42 and 58, ARCHITECTURE §21, §26): each person with their role, identities,
// conversations, keys and rights (person-detail.tsx); the
// role changed in place; another person merged into this one (one person, both identities);
// a person forgotten (their chats become strangers again); a person added by name (issue 75 §1),
// their card opened with its invite. The owner is listed first and stays.
import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { ErrorBanner } from '@/components/ui/error-banner';
import { AddPerson } from './add-person';
import { PersonaAsks, type AskingPerson } from './persona-asks';
import { PersonDetail } from './person-detail';
import { WordsPrivacy } from './words-privacy';
import { errorText } from '@/lib/errors/error-text';

interface PersonJson {
  id: string;
  name: string;
  role: 'owner' | 'trusted' | 'guest';
  identities: { id: string; kind: string; sender: string }[];
  limits: Record<string, unknown> | null;
  persona_request: AskingPerson['persona_request'];
}

function PersonItem(props: { person: PersonJson; others: PersonJson[]; opened: boolean; onChanged: (notice: string) => void; onError: (message: string) => void }) {
  const { person } = props;
  const [mergeFrom, setMergeFrom] = useState('');
  const [forgetting, setForgetting] = useState(false);
  const act = async (what: () => Promise<unknown>, notice: string) => {
    try {
      await what();
      props.onChanged(notice);
    } catch (caught) {
      props.onError(errorText(caught));
    }
  };
  const owner = person.role === 'owner';
  return (
    <li className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800" aria-label={`Person ${person.name}`}>
      <div className="flex flex-wrap items-center gap-3">
        <strong>{person.name}</strong>
        {owner ? (
          <span className="rounded bg-zinc-100 px-2 py-0.5 text-xs dark:bg-zinc-800">owner (the web page)</span>
        ) : (
          <label className="flex items-center gap-1 text-xs">
            Role
            <select
              className="field"
              aria-label={`Role of ${person.name}`}
              value={person.role}
              onChange={(event) => void act(() => apiFetch(`/api/people/${encodeURIComponent(person.id)}`, { method: 'PATCH', body: { role: event.target.value } }), `${person.name} is now ${event.target.value}.`)}
            >
              <option value="guest">guest — no shell, web or browser; cards go to you</option>
              <option value="trusted">trusted — decides the cards of their own conversations</option>
            </select>
          </label>
        )}
      </div>
      <ul className="text-xs text-zinc-600 dark:text-zinc-400" aria-label={`Identities of ${person.name}`}>
        {person.identities.length === 0 ? <li>{owner ? 'The web page; merge your own chats here to decide cards from your phone.' : 'No chat paired (their web access is under their card).'}</li> : null}
        {person.identities.map((identity) => (
          <li key={identity.id}>
            {identity.kind}: <span className="font-mono">{identity.sender}</span>
          </li>
        ))}
      </ul>
      <details className="rounded bg-zinc-50 p-2 dark:bg-zinc-900" open={props.opened || undefined}>
        <summary className="cursor-pointer text-xs font-medium">Conversations, keys, today and rights</summary>
        <PersonDetail personId={person.id} name={person.name} onError={props.onError} />
      </details>
      <div className="flex flex-wrap items-end gap-2">
        {props.others.length > 0 && (
          <>
            <label className="flex flex-col text-xs">
              Same person as
              <select className="field" aria-label={`Merge into ${person.name}`} value={mergeFrom} onChange={(event) => setMergeFrom(event.target.value)}>
                <option value="">—</option>
                {props.others.map((other) => (
                  <option key={other.id} value={other.id}>
                    {other.name} ({other.identities.map((identity) => identity.kind).join(', ') || 'no identity'})
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              className="btn"
              disabled={!mergeFrom}
              onClick={() =>
                void act(() => apiFetch(`/api/people/${encodeURIComponent(person.id)}/identities`, { method: 'POST', body: { merge_from: mergeFrom } }), `Merged into ${person.name}.`).then(() => setMergeFrom(''))
              }
            >
              Merge
            </button>
          </>
        )}
        {!owner && (
          <button type="button" className="btn btn-danger" onClick={() => setForgetting(true)}>
            Forget
          </button>
        )}
      </div>
      {forgetting && (
        <ConfirmDialog
          open
          danger
          title={`Forget ${person.name}?`}
          message="Their identities and chats go: they are strangers again and must pair anew. Their conversations stay."
          confirmLabel="Forget"
          onCancel={() => setForgetting(false)}
          onConfirm={() => {
            setForgetting(false);
            void act(() => apiFetch(`/api/people/${encodeURIComponent(person.id)}`, { method: 'DELETE' }), `${person.name} forgotten.`);
          }}
        />
      )}
    </li>
  );
}

export function PeopleBrowser() {
  const [people, setPeople] = useState<PersonJson[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setPeople((await apiFetch<{ people: PersonJson[] }>('/api/people')).people);
    } catch (caught) {
      setError(errorText(caught));
    }
  }, []);
  useEffect(() => void load(), [load]);
  if (!people) return <ErrorBanner message={error} />;
  return (
    <div className="space-y-3">
      <ErrorBanner message={error} />
      {notice && (
        <p role="status" className="text-sm text-green-700 dark:text-green-400">
          {notice}
        </p>
      )}
      <PersonaAsks
        people={people}
        onGiven={(message) => {
          setError(null);
          setNotice(message);
          void load();
        }}
        onError={setError}
      />
      <WordsPrivacy onError={setError} />
      <AddPerson
        onAdded={(person) => {
          setError(null);
          setAdded(person.id);
          setNotice(`${person.name} added. Invite them to the web pages from their card below.`);
          void load();
        }}
        onError={setError}
      />
      <ul className="space-y-2" aria-label="People">
        {people.map((person) => (
          <PersonItem
            key={person.id}
            person={person}
            others={people.filter((other) => other.id !== person.id && other.role !== 'owner')}
            opened={person.id === added}
            onChanged={(message) => {
              setError(null);
              setNotice(message);
              void load();
            }}
            onError={setError}
          />
        ))}
      </ul>
    </div>
  );
}
