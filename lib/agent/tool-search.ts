// Tool search (issue 30): when the enabled MCP tools' definitions would cost more than a budget
// of prompt tokens on every call, the model gets `search_tools` instead of them, and only the
// definitions it loads. Loaded tools stay loaded for the session and are appended in the order
// they were loaded, so each load changes the cached prompt prefix once and never reorders it.
import { z } from 'zod';
import { estimateTokens } from '@/lib/mind/token-budget';
import { builtinTool, type Tool } from '@/lib/tools/tool-types';

export const SEARCH_TOOLS_NAME = 'search_tools';

/** The tools a session loaded by searching, in load order. */
export class LoadedTools {
  private readonly names: string[] = [];

  load(names: readonly string[]): string[] {
    const added = names.filter((name) => !this.names.includes(name));
    this.names.push(...added);
    return added;
  }

  list(): readonly string[] {
    return this.names;
  }
}

export function definitionTokens(tools: readonly Tool[]): number {
  return tools.reduce((sum, tool) => sum + estimateTokens(JSON.stringify({ name: tool.definition.name, description: tool.definition.description, input_schema: tool.definition.inputSchema })), 0);
}

const words = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 1);

/** The best matches for a query: name words count most, then description words; ties by name. */
export function rankTools(tools: readonly Tool[], query: string, limit: number): Tool[] {
  const terms = words(query);
  const scored = tools.map((tool) => {
    const name = words(tool.definition.name.replace(/__/g, ' '));
    const description = words(tool.definition.description);
    const score = terms.reduce((sum, term) => sum + (name.some((word) => word.startsWith(term)) ? 3 : 0) + (description.some((word) => word.startsWith(term)) ? 1 : 0), 0);
    return { tool, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.definition.name.localeCompare(b.tool.definition.name))
    .slice(0, limit)
    .map((entry) => entry.tool);
}

const searchArgs = z
  .object({
    query: z.string().trim().min(1).max(500).describe('What the tool should do, in a few words (e.g. "create github issue")'),
    limit: z.number().int().min(1).max(10).optional().describe('How many tools to load (default 5)'),
  })
  .strict();

export function searchToolsTool(deferred: readonly Tool[], loaded: LoadedTools): Tool<z.infer<typeof searchArgs>> {
  const servers = [...new Set(deferred.map((tool) => (typeof tool.source === 'object' ? tool.source.mcpServer : 'app')))].sort();
  return builtinTool({
    name: SEARCH_TOOLS_NAME,
    traits: ['read_only'],
    description: `Finds and loads tools of the user's MCP servers (${deferred.length} tools from ${servers.join(', ')}); their definitions are not listed until loaded. Search with a few words; the matching tools are loaded and can be called from your next step.`,
    args: searchArgs,
    describeCall: (args) => `search tools: ${args.query}`,
    run: async (args) => {
      const found = rankTools(deferred, args.query, args.limit ?? 5);
      if (found.length === 0) return { isError: false, content: `No tool matches "${args.query}". Try other words (${deferred.length} tools from ${servers.join(', ')}).` };
      const added = loaded.load(found.map((tool) => tool.definition.name));
      const lines = found.map((tool) => `- ${tool.definition.name}: ${tool.definition.description.slice(0, 200)}`);
      return { isError: false, content: `Loaded ${found.length} tool(s)${added.length < found.length ? ` (${found.length - added.length} already loaded)` : ''}; call them from your next step:\n${lines.join('\n')}` };
    },
  }) as Tool<z.infer<typeof searchArgs>>;
}
