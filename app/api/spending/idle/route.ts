import { estimateCost } from '@/lib/backends/pricing';
import { handle } from '@/lib/http/route-helpers';
import { idleCost, typicalCycle } from '@/lib/mind/idle-cost';
import { readSettings } from '@/lib/store/settings-repository';
import { recentSubconsciousCalls } from '@/lib/store/spending-repository';

export const dynamic = 'force-dynamic';

/**
 * What an idle conversation costs a day on the default models and parameters (issue 74 §7): the
 * rest rules' cycles times one Subconscious cycle — the median of its last ones on this model, or
 * the benchmark's size before there are three — in tokens and, where priced, dollars.
 */
export const GET = handle(async () => {
  const { models, params } = await readSettings();
  const layer = models.s_model;
  const recent = (await recentSubconsciousCalls()).filter((call) => call.model === layer.model);
  const cycle = typicalCycle(recent);
  const cost = idleCost(params, cycle);
  const priced = recent.map((call) => call.costUsd).filter((usd): usd is number => usd !== null);
  const perCycle = priced.length >= 3 ? [...priced].sort((a, b) => a - b)[Math.floor(priced.length / 2)]! : estimateCost(layer.model, { inputTokens: cycle.inputTokens, outputTokens: cycle.outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });
  const day = (entry: typeof cost.first) => ({
    cycles: entry.cycles,
    tokens: entry.inputTokens + entry.outputTokens,
    usd: perCycle === 'unknown' ? null : Math.round(entry.cycles * perCycle * 1e6) / 1e6,
  });
  return Response.json({
    pacing: params.pacing,
    backend: layer.backend,
    model: layer.model,
    first_day: day(cost.first),
    later_day: day(cost.later),
    at_least: cost.atLeast,
    measured_from: recent.length >= 3 ? recent.length : 0,
  });
});
