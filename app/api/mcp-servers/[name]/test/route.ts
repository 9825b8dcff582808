import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { readMcpSettings } from '@/lib/store/settings-repository';
import { mcpServerParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

/** Connects to the server again now and lists its tools: `{ ok, tools, error }`. */
export const POST = handle(async (_request, context: { params: Promise<{ name: string }> }) => {
  const { name } = parseParams(await context.params, mcpServerParamsSchema);
  const settings = await readMcpSettings();
  if (!settings.mcpServers[name]) throw new ApiError('not_found', `No MCP server named ${JSON.stringify(name)} is configured`);
  return Response.json(await getOrchestrator().mcp.test(name));
});
