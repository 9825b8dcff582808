'use client';

/** One allowance's figures for its day, as GET /api/allowances answers them. */
export interface Today {
  scope: 'app' | 'persona' | 'person';
  scope_id: string;
  day: string;
  spent: { usd: number; tokens: number };
  reserved: { usd: number; tokens: number };
  limit: { usd: number | null; tokens: number | null };
}

/** How much of a day's allowance is gone, as a bar. */
export function DayBar({ today }: { today: Today | undefined }) {
  if (!today) return <span className="text-xs text-zinc-500">not used today</span>;
  const shares = [today.limit.usd ? (today.spent.usd + today.reserved.usd) / today.limit.usd : 0, today.limit.tokens ? (today.spent.tokens + today.reserved.tokens) / today.limit.tokens : 0];
  const share = Math.min(1, Math.max(...shares));
  const text = [today.limit.usd !== null && `$${today.spent.usd.toFixed(2)} of $${today.limit.usd.toFixed(2)}`, today.limit.tokens !== null && `${today.spent.tokens.toLocaleString()} of ${today.limit.tokens.toLocaleString()} tokens`].filter(Boolean).join(' · ');
  return (
    <span className="flex items-center gap-2 text-xs">
      <span className="inline-block h-2 w-24 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800" role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(share * 100)} aria-label="spent today">
        <span className={`block h-full ${share >= 1 ? 'bg-red-600' : share >= 0.8 ? 'bg-amber-500' : 'bg-emerald-600'}`} style={{ width: `${share * 100}%` }} />
      </span>
      {text} today ({today.day})
    </span>
  );
}

