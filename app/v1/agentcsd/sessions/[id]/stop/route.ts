// The agent door (issue 46 §4): stops the reply being written (an ACP client's cancel).
import { agentStop } from '@/lib/http/agent-door';
import { doorHandler, doorKey } from '@/lib/http/openai-door';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';

export const dynamic = 'force-dynamic';

export const POST = doorHandler(async (request) => {
  const key = await doorKey(request);
  return Response.json(await agentStop(getOrchestrator(), key, new URL(request.url).pathname.split('/').at(-2)!));
});
