'use client';

import { ScrollX } from '@/components/ui/scroll-x';
import { useEffect, useState } from 'react';
import Link from 'next/link';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { apiFetch, unlessRefused } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { DayBar, type Today } from './day-bar';
import { HourlyTokens } from './hourly-tokens';
import { LAYER_SERIES as LAYERS } from './layer-series';

interface SpendingJson {
  time_zone: string;
  days: { day: string; usd: number; tokens: number; by_layer: Record<string, number>; by_persona: Record<string, number> }[];
  top_sessions?: { id: string; name: string; persona: string; usd: number; tokens: number }[];
}

const PALETTE = ['#4f46e5', '#0891b2', '#a21caf', '#65a30d', '#ca8a04', '#ea580c', '#db2777', '#0d9488', '#7c3aed', '#71717a'];
const dollars = (value: number) => (value >= 1 || value === 0 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`);

/** A month of spending stacked by what made the calls, or by persona. */
function StackedDays({ title, days, series: all }: { title: string; days: { day: string; [key: string]: number | string }[]; series: { key: string; name: string; color: string }[] }) {
  const series = all.filter((entry) => days.some((day) => Number(day[entry.key] ?? 0) > 0));
  return (
    <figure className="space-y-1">
      <figcaption className="text-sm font-medium">{title}</figcaption>
      <div className="h-64 w-full">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={days} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="day" tickFormatter={(day: string) => day.slice(5)} fontSize={11} />
            <YAxis tickFormatter={(value: number) => dollars(value)} fontSize={11} width={64} />
            <Tooltip formatter={(value) => dollars(Number(value))} />
            <Legend />
            {series.map((entry) => (
              <Bar key={entry.key} dataKey={entry.key} name={entry.name} stackId="day" fill={entry.color} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** The Spending page (issue 48): today per allowance, the last 30 days by layer and by persona, the costliest sessions — or one session's. */
export function SpendingView({ sessionId, owner = true }: { sessionId?: string; owner?: boolean }) {
  const [spending, setSpending] = useState<SpendingJson | null>(null);
  const [today, setToday] = useState<Today[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    Promise.all([apiFetch<SpendingJson>(`/api/spending?days=30${sessionId ? `&session=${sessionId}` : ''}`), unlessRefused(apiFetch<{ today: Today[] }>('/api/allowances'), { today: [] })]).then(
      ([money, allowances]) => {
        setSpending(money);
        setToday(allowances.today);
      },
      (caught: Error) => setError(caught.message),
    );
  }, [sessionId]);

  if (error) return <ErrorBanner message={error} />;
  if (!spending) return <p className="text-sm text-zinc-500">Loading…</p>;
  const byLayer = spending.days.map((day) => ({ day: day.day, ...day.by_layer }));
  const personas = [...new Set(spending.days.flatMap((day) => Object.keys(day.by_persona)))].sort();
  const byPersona = spending.days.map((day) => ({ day: day.day, ...day.by_persona }));
  const total = spending.days.reduce((sum, day) => sum + day.usd, 0);
  const tokens = spending.days.reduce((sum, day) => sum + day.tokens, 0);
  return (
    <div className="space-y-6">
      {!sessionId && (
        <section aria-labelledby="today-heading" className="space-y-2">
          <h2 id="today-heading" className="text-lg font-semibold">
            Today
          </h2>
          {today.length === 0 ? (
            <p className="text-sm text-zinc-500">
              No allowance is set: nothing stops the spending.{' '}
              {owner ? (
                <Link className="underline" href="/settings/spending">
                  Set one in Settings › Spending
                </Link>
              ) : (
                'The owner may set one'
              )}
              .
            </p>
          ) : (
            <ul className="space-y-1">
              {today.map((figures) => (
                <li key={`${figures.scope}:${figures.scope_id}`} className="flex flex-wrap items-center gap-3 text-sm" data-testid="allowance-today">
                  <span className="w-40">{figures.scope === 'app' ? 'The whole app' : `${figures.scope} ${figures.scope_id.slice(0, 24)}`}</span>
                  <DayBar today={figures} />
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <section aria-labelledby="hours-heading" className="space-y-2">
        <h2 id="hours-heading" className="text-lg font-semibold">
          Hour by hour
        </h2>
        <HourlyTokens sessionId={sessionId} />
      </section>
      <section aria-labelledby="month-heading" className="space-y-4">
        <h2 id="month-heading" className="text-lg font-semibold">
          The last 30 days <span className="text-sm font-normal text-zinc-500">({dollars(total)}, {tokens.toLocaleString()} tokens; days in {spending.time_zone})</span>
        </h2>
        <StackedDays title="By what made the calls" days={byLayer} series={LAYERS} />
        <StackedDays title="By persona" days={byPersona} series={personas.map((name, index) => ({ key: name, name, color: PALETTE[index % PALETTE.length]! }))} />
      </section>
      {spending.top_sessions && (
        <section aria-labelledby="top-heading" className="space-y-2">
          <h2 id="top-heading" className="text-lg font-semibold">
            The costliest sessions
          </h2>
          <ScrollX label="The costliest sessions (table)">
            <table className="w-full text-sm">
              <thead>
                <tr className="text-left text-zinc-500">
                  <th className="py-1">Session</th>
                  <th>Persona</th>
                  <th className="text-right">Cost</th>
                  <th className="text-right">Tokens</th>
                </tr>
              </thead>
              <tbody>
                {spending.top_sessions.map((row) => (
                  <tr key={row.id} className="border-t border-zinc-200 dark:border-zinc-800">
                    <td className="py-1">
                      <Link className="underline" href={`/spending?session=${row.id}`}>
                        {row.name}
                      </Link>
                    </td>
                    <td>{row.persona}</td>
                    <td className="text-right">{dollars(row.usd)}</td>
                    <td className="text-right">{row.tokens.toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollX>
        </section>
      )}
    </div>
  );
}
