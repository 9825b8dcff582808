import { ApiError } from '@/lib/http/api-error';
import { requireWords } from '@/lib/http/web-visitor';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import type { PromptRecord } from '@/lib/mind/events';
import { estimateTokens } from '@/lib/mind/token-budget';
import { contextWindowFor } from '@/lib/backends/model-limits';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { findSession } from '@/lib/store/sessions-repository';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

function promptJson(prompt: PromptRecord | undefined) {
  if (!prompt) return null;
  return {
    at: prompt.at,
    backend: prompt.backend,
    model: prompt.model,
    max_tokens: prompt.maxTokens,
    system: prompt.system.map((segment) => ({ text: segment.text, cache: segment.cache, estimated_tokens: estimateTokens(segment.text) })),
    user: { text: prompt.user, estimated_tokens: estimateTokens(prompt.user) },
    reported_input_tokens: prompt.reportedInputTokens,
  };
}

/** The exact last prompt each layer sent (system parts and user part), with token counts. */
export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  await requireWords(request, id); // a conversation's words: its people's, and the owner's unless kept their own
  const session = await findSession({ id });
  if (!session) throw new ApiError('not_found', `Session ${id} does not exist`);
  const orchestrator = getOrchestrator();
  const prompts = orchestrator.lastPrompts(id);
  const summaries = orchestrator.summaries(id);
  const summaryJson = (summary: { summary: string; fromCycle: number; toCycle: number } | null | undefined) =>
    summary ? { summary: summary.summary, from_cycle: summary.fromCycle, to_cycle: summary.toCycle } : null;
  const budget = (config: LayerModelConfig) => ({ context_window: contextWindowFor(config), max_tokens: config.max_tokens });
  return Response.json({
    running: prompts !== null,
    internal: promptJson(prompts?.internal),
    subconscious: promptJson(prompts?.subconscious),
    summaries: { internal: summaryJson(summaries?.internal), subconscious: summaryJson(summaries?.subconscious) },
    budgets: { internal: budget(session.models.c_model), subconscious: budget(session.models.s_model) },
  });
});
