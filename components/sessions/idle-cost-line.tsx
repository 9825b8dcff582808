'use client';

// The home page's line on what idling costs (issue 74 §7): an idle conversation's first day and each
// later one on the default models, from the rest rules and the Subconscious's own recent cycles.
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';

interface IdleDayJson {
  cycles: number;
  tokens: number;
  usd: number | null;
}

interface IdleCostJson {
  pacing: 'adaptive' | 'continuous';
  backend: string;
  model: string;
  first_day: IdleDayJson;
  later_day: IdleDayJson;
  at_least: boolean;
  measured_from: number;
}

const tokens = (value: number) => `${value.toLocaleString('en')} token${value === 1 ? '' : 's'}`;
const dollars = (value: number | null) => (value === null ? '' : ` ($${value < 0.01 ? value.toFixed(4) : value.toFixed(2)})`);

export function IdleCostLine() {
  const [cost, setCost] = useState<IdleCostJson | null>(null);
  useEffect(() => {
    apiFetch<IdleCostJson>('/api/spending/idle').then(setCost, () => setCost(null));
  }, []);
  if (!cost) return null;
  const first = `${cost.at_least ? 'at least ' : 'about '}${tokens(cost.first_day.tokens)}${dollars(cost.first_day.usd)} on its first day`;
  const later = cost.later_day.tokens === 0 ? 'nothing on the days after, until someone speaks' : `${tokens(cost.later_day.tokens)}${dollars(cost.later_day.usd)} each day after`;
  const how =
    cost.pacing === 'continuous'
      ? 'continuous pacing thinks without rest'
      : `${cost.first_day.cycles} thought${cost.first_day.cycles === 1 ? '' : 's'}, then it rests until something happens`;
  return (
    <p className="text-xs text-zinc-500" data-testid="idle-cost">
      An idle conversation on these models (Subconscious: {cost.model}) costs {first} — {how} — and {later}.{' '}
      {cost.measured_from > 0 ? `From its last ${cost.measured_from} cycles.` : 'Estimated from the benchmark’s cycle size until there are cycles to measure.'}
      {cost.backend === 'claude_code_cli' && ' On the Claude Code CLI it counts against your subscription.'}
    </p>
  );
}
