'use client';

import { ScrollX } from '@/components/ui/scroll-x';
import type { CallLayer, UsageTotals } from '@/lib/store/mind-repository';

const formatTokens = (value: number) => (value >= 10_000 ? `${(value / 1000).toFixed(1)}k` : value.toLocaleString('en'));
const formatCost = (value: number) => `$${value < 0.01 && value > 0 ? value.toFixed(4) : value.toFixed(2)}`;

/** Tokens and estimated cost per layer and for the session. */
export function UsageSummary({ usage }: { usage: Record<CallLayer, UsageTotals> | null }) {
  if (!usage) return null;
  const rows: [string, UsageTotals][] = [
    ['Internal Dialog', usage.internal],
    ['Subconscious', usage.subconscious],
  ];
  if (usage.summary.calls) rows.push(['Summaries', usage.summary]);
  if (usage.memory?.calls) rows.push(['Memory consolidation', usage.memory]);
  if (usage.embeddings?.calls) rows.push(['Embeddings', usage.embeddings]);
  const total = rows.reduce(
    (sum, [, row]) => ({
      calls: sum.calls + row.calls,
      tokens: sum.tokens + row.inputTokens + row.outputTokens,
      cost: sum.cost + row.costUsd,
      unpriced: sum.unpriced + row.unpricedCalls,
    }),
    { calls: 0, tokens: 0, cost: 0, unpriced: 0 },
  );
  return (
    <ScrollX label="Tokens and cost (table)">
      <table className="text-xs" aria-label="Tokens and cost">
        <thead className="text-zinc-500">
          <tr>
            <th scope="col" className="pr-3 text-left font-medium">Layer</th>
            <th scope="col" className="pr-3 text-right font-medium">Calls</th>
            <th scope="col" className="pr-3 text-right font-medium">Input</th>
            <th scope="col" className="pr-3 text-right font-medium">Cached</th>
            <th scope="col" className="pr-3 text-right font-medium">Output</th>
            <th scope="col" className="text-right font-medium">Cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, row]) => (
            <tr key={name}>
              <th scope="row" className="pr-3 text-left font-normal">{name}</th>
              <td className="pr-3 text-right tabular-nums">{row.calls}</td>
              <td className="pr-3 text-right tabular-nums">{formatTokens(row.inputTokens)}</td>
              <td className="pr-3 text-right tabular-nums">{formatTokens(row.cacheReadTokens)}</td>
              <td className="pr-3 text-right tabular-nums">{formatTokens(row.outputTokens)}</td>
              <td className="text-right tabular-nums">{formatCost(row.costUsd)}</td>
            </tr>
          ))}
          <tr className="font-semibold">
            <th scope="row" className="pr-3 text-left">Session</th>
            <td className="pr-3 text-right tabular-nums">{total.calls}</td>
            <td className="pr-3 text-right tabular-nums" colSpan={3}>{formatTokens(total.tokens)} tokens</td>
            <td className="text-right tabular-nums" title={total.unpriced ? `${total.unpriced} calls to models without a known price are not counted` : undefined}>
              {formatCost(total.cost)}
              {total.unpriced > 0 && '*'}
            </td>
          </tr>
        </tbody>
      </table>
    </ScrollX>
  );
}
