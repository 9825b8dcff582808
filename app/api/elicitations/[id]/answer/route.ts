import { z } from 'zod';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { elicitationAnswerSchema } from '@/lib/mcp/elicitation';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.uuid('not an elicitation id') }).strict();

/**
 * The user's answer to an MCP server's question: `{ action: "accept"|"decline"|"cancel", content? }`.
 * The content is checked against the server's form and goes to the server only; the answer's
 * card (status only) is what comes back.
 */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const { session_id: sessionId, ...answer } = await readJsonBody(request, elicitationAnswerSchema);
  return Response.json({ elicitation: await getOrchestrator().answerElicitation(id, answer, sessionId) });
});
