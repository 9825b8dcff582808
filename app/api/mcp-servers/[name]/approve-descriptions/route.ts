import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { writeMcpSettings } from '@/lib/store/settings-repository';
import { mcpServerParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

/**
 * The user read the server's tool descriptions (Settings › MCP servers) and approves them as they
 * are now: they stop counting as untrusted content, and a later change is flagged (§20).
 */
export const POST = handle(async (_request, context: { params: Promise<{ name: string }> }) => {
  const { name } = parseParams(await context.params, mcpServerParamsSchema);
  const pool = getOrchestrator().mcp;
  const settings = pool.withDescriptionsApproved(name);
  await writeMcpSettings(settings);
  await pool.configure(settings);
  return Response.json({ server: pool.status().find((server) => server.name === name) ?? null });
});
