// The agent door (issue 46 §4): a new session of a persona for the key's person (`npm run acp` opens one per ACP session).
import { readJsonBody } from '@/lib/http/route-helpers';
import { newAgentSession, newAgentSessionSchema } from '@/lib/http/agent-door';
import { doorHandler, doorKey } from '@/lib/http/openai-door';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';

export const dynamic = 'force-dynamic';

export const POST = doorHandler(async (request) => {
  const key = await doorKey(request);
  const { persona } = await readJsonBody(request, newAgentSessionSchema, 4 * 1024);
  return Response.json({ session_id: await newAgentSession(getOrchestrator(), key, persona) }, { status: 201 });
});
