'use client';

// A person's quiet hours (issue 74 §5): from, to and the time zone they live in. Meanwhile the
// agent's unprompted words wait — on every chat of theirs and their phone — and the page says how
// many wait and until when; a card someone must decide still goes out, as does an answer asked for.
import { useState } from 'react';
import { savePersonLimit } from './person-limits';

export interface QuietHoursJson {
  from: string;
  to: string;
  time_zone: string;
}

interface Props {
  personId: string;
  name: string;
  limits: Record<string, unknown> | null;
  quiet: QuietHoursJson | null;
  waiting: { messages: number; until: string | null };
  onSaved: () => void;
  onError: (message: string) => void;
}

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function PersonQuietHours({ personId, name, limits, quiet, waiting, onSaved, onError }: Props) {
  const [from, setFrom] = useState(quiet?.from ?? '22:00');
  const [to, setTo] = useState(quiet?.to ?? '07:00');
  const [zone, setZone] = useState(quiet?.time_zone ?? browserZone());
  const save = async (next: QuietHoursJson | null) => {
    try {
      await savePersonLimit(personId, limits, 'quiet_hours', next);
      onSaved();
    } catch (caught) {
      onError((caught as Error).message);
    }
  };
  return (
    <form
      className="mt-2 space-y-1"
      aria-label={`Quiet hours of ${name}`}
      onSubmit={(event) => {
        event.preventDefault();
        void save({ from, to, time_zone: zone.trim() });
      }}
    >
      <h3 className="font-medium">Quiet hours</h3>
      <p className="text-zinc-500">
        {quiet ? `${quiet.from}–${quiet.to} (${quiet.time_zone}): the agent's own words wait until they end; cards still go out.` : `None: the agent may write to ${name} at any hour.`}
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-1">
          from <input type="time" value={from} onChange={(event) => setFrom(event.target.value)} className="field" aria-label="Quiet from" required />
        </label>
        <label className="flex items-center gap-1">
          to <input type="time" value={to} onChange={(event) => setTo(event.target.value)} className="field" aria-label="Quiet until" required />
        </label>
        <label className="flex items-center gap-1">
          time zone <input value={zone} onChange={(event) => setZone(event.target.value)} className="field w-36" aria-label="Time zone" required />
        </label>
        <button type="submit" className="rounded-md border border-zinc-300 px-2 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
          Save
        </button>
        {quiet && (
          <button type="button" onClick={() => void save(null)} className="rounded-md border border-zinc-300 px-2 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
            No quiet hours
          </button>
        )}
      </div>
      {waiting.messages > 0 && (
        <p data-testid="person-waiting" className="rounded bg-amber-50 px-1 text-amber-800 dark:bg-amber-950 dark:text-amber-300">
          {waiting.messages} message{waiting.messages === 1 ? '' : 's'} of the agent wait{waiting.messages === 1 ? 's' : ''} for {name}&apos;s quiet hours
          {waiting.until ? ` (until ${new Date(waiting.until).toLocaleString()})` : ''}.
        </p>
      )}
    </form>
  );
}
