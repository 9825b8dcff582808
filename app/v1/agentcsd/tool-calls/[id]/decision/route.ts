// The agent door (issue 46 §4): a card decided from the agent front-end (an ACP permission request answered).
import { readJsonBody } from '@/lib/http/route-helpers';
import { agentDecision, agentDecisionSchema } from '@/lib/http/agent-door';
import { doorHandler, doorKey } from '@/lib/http/openai-door';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';

export const dynamic = 'force-dynamic';

export const POST = doorHandler(async (request) => {
  const key = await doorKey(request);
  const decision = await readJsonBody(request, agentDecisionSchema, 8 * 1024);
  return Response.json(await agentDecision(getOrchestrator(), key, new URL(request.url).pathname.split('/').at(-2)!, decision));
});
