// The OpenAI-compatible door (issue 46 §2): a chat completion is the newest user message delivered
// to the key's session of the persona the model names, answered by the mind (lib/http/openai-door.ts).
import { readJsonBody } from '@/lib/http/route-helpers';
import { chatCompletion, chatCompletionRequestSchema, doorHandler, doorKey } from '@/lib/http/openai-door';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';

export const dynamic = 'force-dynamic';

export const POST = doorHandler(async (request) => {
  const key = await doorKey(request);
  const body = await readJsonBody(request, chatCompletionRequestSchema, 4 * 1024 * 1024);
  return chatCompletion(getOrchestrator(), key, body, new URL(request.url).origin);
});
