'use client';

import { ScrollX } from '@/components/ui/scroll-x';
import { useEffect, useState } from 'react';
import { apiFetch, unlessRefused } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import type { ApiKeyJson } from '@/lib/store/api-keys-repository';
import { errorText } from '@/lib/errors/error-text';

interface PersonJson {
  id: string;
  name: string;
  role: string;
}

/**
 * Settings › Access (issue 46 §1): keys for other clients — an OpenAI client, a script. Each acts as
 * one person on the personas it names; its secret is shown once, here, and never again.
 */
export function AccessSettings() {
  const [keys, setKeys] = useState<ApiKeyJson[] | null>(null);
  const [personas, setPersonas] = useState<string[]>([]);
  const [people, setPeople] = useState<PersonJson[]>([]);
  const [name, setName] = useState('');
  const [person, setPerson] = useState('owner');
  const [chosen, setChosen] = useState<string[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [origin, setOrigin] = useState('');

  async function load() {
    const [listed, known, who] = await Promise.all([
      apiFetch<{ keys: ApiKeyJson[] }>('/api/keys'),
      apiFetch<{ personas: { name: string }[] }>('/api/personas'),
      // A trusted person's own keys (issue 61): the people list is the owner's.
      unlessRefused(apiFetch<{ people: PersonJson[] }>('/api/people'), { people: [] }),
    ]);
    setKeys(listed.keys);
    setPersonas(known.personas.map((persona) => persona.name));
    setPeople(who.people);
  }

  useEffect(() => {
    setOrigin(window.location.origin);
    load().catch((caught: Error) => setError(caught.message));
  }, []);

  async function create() {
    setBusy(true);
    try {
      const made = await apiFetch<{ key: ApiKeyJson & { secret: string } }>('/api/keys', { method: 'POST', body: { name, person_id: person, personas: chosen } });
      setSecret(made.key.secret);
      setName('');
      setChosen([]);
      setError(null);
      await load();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  async function revoke(id: string) {
    try {
      await apiFetch(`/api/keys/${id}`, { method: 'DELETE' });
      await load();
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  const nameOf = (id: string) => people.find((entry) => entry.id === id)?.name ?? id;
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

  return (
    <section id="access" aria-labelledby="access-heading" className="space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="access-heading" className="text-lg font-semibold">
        Access
      </h2>
      <p className="text-sm text-zinc-500">
        Keys for other clients. Point any OpenAI client at <code>{origin}/v1</code> with a key: its models are <code>persona/&lt;name&gt;</code>, and each key talks to a session of its own per persona, as the person it names. A key reaches nothing else.
      </p>
      {error && <ErrorBanner message={error} />}
      {secret && (
        <div role="status" aria-label="New key" className="space-y-1 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-800 dark:bg-emerald-950/40">
          <p>Copy it now: it is shown once and never again.</p>
          <code className="block break-all">{secret}</code>
          <button type="button" className="btn" onClick={() => setSecret(null)}>
            I have copied it
          </button>
        </div>
      )}
      <form
        className="space-y-2 text-sm"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <div className="flex flex-wrap items-end gap-3">
          <label className="flex flex-col gap-1">
            Name
            <input className="input" value={name} maxLength={100} onChange={(event) => setName(event.target.value)} placeholder="laptop script" />
          </label>
          {people.length > 0 && (
            <label className="flex flex-col gap-1">
              Acts as
              <select className="input" value={person} onChange={(event) => setPerson(event.target.value)}>
                {people.map((entry) => (
                  <option key={entry.id} value={entry.id}>
                    {entry.name} ({entry.role})
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
        <fieldset className="flex flex-wrap gap-3">
          <legend className="mb-1">Personas it may use</legend>
          {personas.map((persona) => (
            <label key={persona} className="flex items-center gap-1">
              <input type="checkbox" checked={chosen.includes(persona)} onChange={(event) => setChosen(event.target.checked ? [...chosen, persona] : chosen.filter((entry) => entry !== persona))} />
              {persona}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="btn" disabled={busy || !name.trim() || chosen.length === 0}>
          Create key
        </button>
      </form>
      {keys && keys.length > 0 && (
        <ScrollX label="API keys (table)">
          <table aria-label="API keys" className="w-full text-left text-sm">
            <thead>
              <tr className="text-zinc-500">
                <th>Name</th>
                <th>Acts as</th>
                <th>Personas</th>
                <th>Last used</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id} className={key.revoked_at ? 'text-zinc-500 line-through dark:text-zinc-400' : ''}>
                  <td>
                    {key.name} <span className="text-xs text-zinc-500">…{key.hint}</span>
                  </td>
                  <td>{nameOf(key.person_id)}</td>
                  <td>{key.personas.join(', ')}</td>
                  <td>{when(key.last_used_at)}</td>
                  <td>
                    {!key.revoked_at && (
                      <button type="button" className="btn" onClick={() => void revoke(key.id)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollX>
      )}
    </section>
  );
}
