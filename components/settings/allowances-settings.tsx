'use client';

import { useEffect, useState } from 'react';
import { useUnsavedChanges } from '@/components/ui/unsaved-changes';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { DayBar, type Today } from '@/components/spending/day-bar';
import { errorText } from '@/lib/errors/error-text';

type Scope = 'app' | 'persona' | 'person';

interface AllowanceRow {
  scope: Scope;
  scope_id: string;
  usd_per_day: number | null;
  tokens_per_day: number | null;
  time_zone: string;
}


const blank = (timeZone: string): AllowanceRow => ({ scope: 'app', scope_id: '', usd_per_day: null, tokens_per_day: null, time_zone: timeZone });
const numberOrNull = (value: string) => (value.trim() === '' ? null : Number(value));

/**
 * Settings › Allowances (issue 48): hard daily limits in dollars and/or tokens, for the whole app, a
 * persona or a person, each per day in its own time zone. Every model call reserves its worst case
 * first; at 80% you are told once; at the limit the agent calls no model until the day renews.
 */
export function AllowancesSettings() {
  const [rows, setRows] = useState<AllowanceRow[] | null>(null);
  const [today, setToday] = useState<Today[]>([]);
  const [personas, setPersonas] = useState<string[]>([]);
  const [people, setPeople] = useState<{ id: string; name: string }[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const zone = typeof Intl !== 'undefined' ? Intl.DateTimeFormat().resolvedOptions().timeZone : 'UTC';

  async function load() {
    const [saved, known, who] = await Promise.all([apiFetch<{ allowances: AllowanceRow[]; today: Today[] }>('/api/allowances'), apiFetch<{ personas: { name: string }[] }>('/api/personas'), apiFetch<{ people: { id: string; name: string }[] }>('/api/people')]);
    setRows(saved.allowances);
    setToday(saved.today);
    setPersonas(known.personas.map((persona) => persona.name));
    setPeople(who.people);
  }
  useEffect(() => {
    load().catch((caught: Error) => setError(caught.message));
  }, []);

  const [dirty, setDirty] = useState(false);
  useUnsavedChanges('settings-allowances', dirty);
  const change = (index: number, patch: Partial<AllowanceRow>) => {
    setDirty(true);
    setRows((current) => current!.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  };

  async function save() {
    try {
      const saved = await apiFetch<{ allowances: AllowanceRow[]; today: Today[] }>('/api/allowances', { method: 'PUT', body: { allowances: rows } });
      setRows(saved.allowances);
      setToday(saved.today);
      setDirty(false);
      setError(null);
      setNotice('Allowances saved; every model call from now on is held to them.');
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  return (
    <section id="allowances" aria-labelledby="allowances-heading" className="space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="allowances-heading" className="text-lg font-semibold">
        Allowances
      </h2>
      <p className="text-sm text-zinc-500">
        Hard daily limits, for the whole app, a persona or a person, in dollars or tokens (tokens count for models without a known price). Each model call reserves its worst case before it starts; at 80% you are told once (here, in the session and on
        your phone); at the limit the Subconscious rests, tasks pause, schedules and webhooks are skipped and people on chats get a short reply — until midnight in the allowance&apos;s time zone, or until you raise it.
      </p>
      <ErrorBanner message={error} />
      {notice && <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">{notice}</p>}
      {rows === null ? (
        <p className="text-sm text-zinc-500">Loading…</p>
      ) : (
        <ul className="space-y-2">
          {rows.map((row, index) => (
            <li key={index} className="flex flex-wrap items-end gap-2 rounded border border-zinc-200 p-2 text-sm dark:border-zinc-800" data-testid="allowance">
              <label className="flex flex-col text-xs">
                For
                <select className="field" value={row.scope} onChange={(event) => change(index, { scope: event.target.value as Scope, scope_id: event.target.value === 'app' ? '' : event.target.value === 'persona' ? (personas[0] ?? '') : (people[0]?.id ?? '') })}>
                  <option value="app">the whole app</option>
                  <option value="persona">a persona</option>
                  <option value="person">a person</option>
                </select>
              </label>
              {row.scope !== 'app' && (
                <label className="flex flex-col text-xs">
                  {row.scope === 'persona' ? 'Persona' : 'Person'}
                  <select className="field" value={row.scope_id} onChange={(event) => change(index, { scope_id: event.target.value })}>
                    {(row.scope === 'persona' ? personas.map((name) => ({ id: name, name })) : people).map((option) => (
                      <option key={option.id} value={option.id}>
                        {option.name}
                      </option>
                    ))}
                  </select>
                </label>
              )}
              <label className="flex flex-col text-xs">
                Dollars a day
                <input className="field w-28" type="number" min={0} step="0.01" value={row.usd_per_day ?? ''} onChange={(event) => change(index, { usd_per_day: numberOrNull(event.target.value) })} />
              </label>
              <label className="flex flex-col text-xs">
                Tokens a day
                <input className="field w-32" type="number" min={0} step="1000" value={row.tokens_per_day ?? ''} onChange={(event) => change(index, { tokens_per_day: numberOrNull(event.target.value) })} />
              </label>
              <label className="flex flex-col text-xs">
                Time zone
                <input className="field w-40" value={row.time_zone} onChange={(event) => change(index, { time_zone: event.target.value })} />
              </label>
              <DayBar today={today.find((figures) => figures.scope === row.scope && figures.scope_id === row.scope_id)} />
              <button type="button" className="btn" onClick={() => {
                  setDirty(true);
                  setRows((current) => current!.filter((_, at) => at !== index));
                }}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="flex gap-2">
        <button type="button" className="btn" onClick={() => {
            setDirty(true);
            setRows((current) => [...(current ?? []), blank(zone)]);
          }} disabled={rows === null}>
          Add an allowance
        </button>
        <button type="button" className="btn btn-primary" onClick={() => void save()} disabled={rows === null}>
          Save allowances
        </button>
      </div>
    </section>
  );
}
