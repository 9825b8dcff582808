// The agent door (issue 46 §4): a message, and its turn back as server-sent events (reply, thoughts, tool calls).
import { readJsonBody } from '@/lib/http/route-helpers';
import { agentMessage, agentMessageSchema } from '@/lib/http/agent-door';
import { doorHandler, doorKey } from '@/lib/http/openai-door';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';

export const dynamic = 'force-dynamic';

export const POST = doorHandler(async (request) => {
  const key = await doorKey(request);
  const { text } = await readJsonBody(request, agentMessageSchema, 1024 * 1024);
  const sessionId = new URL(request.url).pathname.split('/').at(-2)!;
  return agentMessage(getOrchestrator(), key, sessionId, text, new URL(request.url).origin);
});
