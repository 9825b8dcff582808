import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import type { PromptRecord } from '@/lib/orchestrator/events';
import { findSession } from '@/lib/store/sessions-repository';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** A rough local count (≈ 4 characters a token); the backend's own count is shown beside it. */
const estimateTokens = (text: string) => Math.ceil(text.length / 4);

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
export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `Session ${id} does not exist`);
  const prompts = getOrchestrator().lastPrompts(id);
  return Response.json({
    running: prompts !== null,
    internal: promptJson(prompts?.internal),
    subconscious: promptJson(prompts?.subconscious),
  });
});
