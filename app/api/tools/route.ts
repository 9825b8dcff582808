import { handle } from '@/lib/http/route-helpers';
import { probeSandbox } from '@/lib/tools/sandbox';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { builtinTools } from '@/lib/agent/tool-registry';

export const dynamic = 'force-dynamic';

/** What Settings shows: the sandbox (working, or why not), the built-in tools and the ready MCP servers' tools. `?refresh=1` probes again. */
export const GET = handle(async (request) => {
  const refresh = new URL(request.url).searchParams.get('refresh') === '1';
  const sandbox = await probeSandbox({ refresh });
  return Response.json({
    sandbox,
    tools: [...builtinTools, ...getOrchestrator().mcp.tools()].map((tool) => ({ name: tool.definition.name, description: tool.definition.description, approval: tool.approval, source: tool.source })),
  });
});
