import { ApiError } from '@/lib/http/api-error';
import { readEnv } from '@/lib/config/env';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { readMcpSettings, writeMcpSettings } from '@/lib/store/settings-repository';
import { findUnrestoredMask, maskedMcpSettings, restoreMaskedSecrets, type McpSettings } from '@/lib/config/mcp-config';
import { putMcpServersBodySchema } from './schema';

export const dynamic = 'force-dynamic';

/** The configuration as pasted (secrets masked) and each server's live status. */
function mcpJson(settings: McpSettings) {
  const servers = getOrchestrator().mcp.status();
  const budget = readEnv().AGENTCSD_TOOL_SEARCH_TOKENS;
  const total = servers.filter((server) => server.enabled && server.state === 'ready').reduce((sum, server) => sum + server.definition_tokens, 0);
  // Above the budget, sessions see search_tools instead of every definition (lib/agent/tool-search.ts).
  return { ...maskedMcpSettings(settings), servers, tool_search: { budget_tokens: budget, definition_tokens: total, active: budget > 0 && total > budget } };
}

export const GET = handle(async () => {
  return Response.json(mcpJson(await readMcpSettings()));
});

/** Saves the servers and applies them: removed or changed ones stop, new ones start. */
export const PUT = handle(async (request) => {
  const body = await readJsonBody(request, putMcpServersBodySchema);
  const stored = await readMcpSettings();
  const names = new Set(Object.keys(body.mcpServers));
  const keep = <T>(entries: Record<string, T>) => Object.fromEntries(Object.entries(entries).filter(([name]) => names.has(name)));
  const settings = restoreMaskedSecrets(
    {
      mcpServers: body.mcpServers,
      tools: keep(body.tools ?? stored.tools),
      disabled: (body.disabled ?? stored.disabled).filter((name) => names.has(name)),
    },
    stored,
  );
  const masked = findUnrestoredMask(settings);
  if (masked) throw new ApiError('validation_failed', `Invalid body: ${masked} is a masked value (••••) that matches nothing stored; paste the real value`);
  await writeMcpSettings(settings);
  await getOrchestrator().mcp.configure(settings);
  return Response.json(mcpJson(settings));
});
