'use client';

// Tokens per hour by what made the calls, over the last day or week (issue 74): answering (the
// Internal Dialog, tasks) apart from idle thinking (the Subconscious) and dreaming (consolidation),
// so a person sees what a mind costs while nobody is there. One session's, or every session's.
import { useEffect, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { apiFetch } from '@/components/api-client';
import { LAYER_SERIES } from './layer-series';

interface HoursJson {
  hours: { hour: string; usd: number; tokens: Record<string, number> }[];
}

// Named for what a person asks of an idle mind: answering apart from thinking and dreaming.
const NAMES: Record<string, string> = { internal: 'Answering', subconscious: 'Idle thinking (Subconscious)', consolidation: 'Dreaming (consolidation)' };
const SERIES = LAYER_SERIES.map((entry) => ({ ...entry, name: NAMES[entry.key] ?? entry.name }));
const RANGES = [
  { hours: 24, label: 'Last day' },
  { hours: 168, label: 'Last week' },
] as const;

const tokens = (value: number) => (value >= 10_000 ? `${Math.round(value / 1000)}k` : value.toLocaleString());

export function HourlyTokens({ sessionId }: { sessionId?: string }) {
  const [hours, setHours] = useState<number>(24);
  const [data, setData] = useState<HoursJson['hours'] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    apiFetch<HoursJson>(`/api/spending?days=1&hours=${hours}${sessionId ? `&session=${sessionId}` : ''}`).then(
      (body) => live && (setData(body.hours), setError(null)),
      (caught: Error) => live && setError(caught.message),
    );
    return () => {
      live = false;
    };
  }, [hours, sessionId]);

  const rows = (data ?? []).map((hour) => ({ hour: hour.hour, ...hour.tokens }));
  const series = SERIES.filter((entry) => rows.some((row) => Number((row as Record<string, unknown>)[entry.key] ?? 0) > 0));
  const sum = (keys: string[]) => (data ?? []).reduce((total, hour) => total + keys.reduce((part, key) => part + (hour.tokens[key] ?? 0), 0), 0);
  const idle = sum(['subconscious', 'consolidation', 'summary']);
  const answering = sum(['internal', 'tasks', 'delegation']);
  const label = (iso: string) => {
    const at = new Date(iso);
    return hours > 24 ? `${at.toLocaleDateString(undefined, { weekday: 'short' })} ${String(at.getHours()).padStart(2, '0')}h` : `${String(at.getHours()).padStart(2, '0')}:00`;
  };
  return (
    <figure className="space-y-2" data-testid="hourly-tokens">
      <figcaption className="flex flex-wrap items-center gap-3 text-sm">
        <span className="font-medium">Tokens per hour</span>
        <span role="group" aria-label="Range" className="flex gap-1">
          {RANGES.map((range) => (
            <button
              key={range.hours}
              type="button"
              aria-pressed={hours === range.hours}
              onClick={() => setHours(range.hours)}
              className={`rounded border px-2 py-0.5 text-xs ${hours === range.hours ? 'border-zinc-900 bg-zinc-900 text-white dark:border-zinc-100 dark:bg-zinc-100 dark:text-zinc-900' : 'border-zinc-300 dark:border-zinc-700'}`}
            >
              {range.label}
            </button>
          ))}
        </span>
        {data && (
          <span className="text-xs text-zinc-500" data-testid="hourly-summary">
            answering {answering.toLocaleString()} · idle thinking and dreaming {idle.toLocaleString()} tokens
          </span>
        )}
      </figcaption>
      {error && <p className="text-sm text-red-600">{error}</p>}
      {!data && !error && <p className="text-sm text-zinc-500">Loading…</p>}
      {data && (
        <div className="h-56 w-full">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="hour" tickFormatter={label} fontSize={11} minTickGap={16} />
              <YAxis tickFormatter={tokens} fontSize={11} width={48} allowDecimals={false} />
              <Tooltip labelFormatter={(iso) => new Date(String(iso)).toLocaleString()} formatter={(value) => `${Number(value).toLocaleString()} tokens`} />
              <Legend />
              {series.map((entry) => (
                <Bar key={entry.key} dataKey={entry.key} name={entry.name} stackId="hour" fill={entry.color} isAnimationActive={false} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </figure>
  );
}
