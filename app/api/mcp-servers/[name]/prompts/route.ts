import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { listPrompts } from '@/lib/mcp/mcp-catalog';
import { mcpServerParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

/** `{ prompts: [{name, description, arguments: [{name, description, required}]}] }`: the chat's slash commands. */
export const GET = handle(async (_request, context: { params: Promise<{ name: string }> }) => {
  const { name } = parseParams(await context.params, mcpServerParamsSchema);
  return Response.json({ prompts: await listPrompts(getOrchestrator().mcp.client(name)) });
});
