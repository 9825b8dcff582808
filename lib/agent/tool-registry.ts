// The one tool registry (ARCHITECTURE §10): the tools a session may use, in a fixed order (the
// definitions are part of the cached prompt prefix), looked up by the name the model called.
import { BUILTIN_TOOL_NAMES } from '@/lib/tools/builtin-tool-names';
import { fileTools } from '@/lib/tools/file-tools';
import { imageTools } from '@/lib/tools/image-tools';
import { shellTools } from '@/lib/tools/shell-tools';
import { memoryTools } from '@/lib/memory/memory-tools';
import { scheduleTool } from '@/lib/triggers/schedule-tool';
import type { Tool, ToolDefinition } from '@/lib/tools/tool-types';
import { definitionTokens, searchToolsTool, SEARCH_TOOLS_NAME, type LoadedTools } from './tool-search';

/** Tools the model finds with `search_tools` rather than seeing them all (their definitions are too many tokens). */
interface Deferred {
  tools: readonly Tool[];
  loaded: LoadedTools;
}

/** Every built-in tool, in the order models see them. */
export const builtinTools: readonly Tool[] = [...fileTools, ...imageTools, ...shellTools, ...memoryTools, scheduleTool] as Tool[];

export const builtinToolNames: readonly string[] = BUILTIN_TOOL_NAMES;

// The pure list the forms use must be the registry's own, in the same order.
if (builtinTools.map((tool) => tool.definition.name).join() !== BUILTIN_TOOL_NAMES.join()) {
  throw new Error('lib/tools/builtin-tool-names.ts disagrees with the built-in tools');
}

export class ToolRegistry {
  private readonly byName: Map<string, Tool>;

  constructor(
    private readonly tools: readonly Tool[],
    private readonly deferred: Deferred | null = null,
  ) {
    this.byName = new Map([...(deferred?.tools ?? []), ...tools].map((tool) => [tool.definition.name, tool]));
  }

  /**
   * The session's tools: the built-ins it allows (absent: all), its graph's configured tools (HTTP), then the tools of the MCP servers
   * it allows (absent: every server the user left on), in the pool's sorted order — a fixed
   * order, so the definitions stay inside the cached prompt prefix.
   */
  static forSession(
    allowed: { builtins?: readonly string[]; mcpServers?: readonly string[] },
    mcpTools: readonly Tool[] = [],
    capabilityTools: readonly Tool[] = [],
    search?: { loaded: LoadedTools; budgetTokens: number },
  ): ToolRegistry {
    const builtins = allowed.builtins ? new Set(allowed.builtins) : null;
    const servers = allowed.mcpServers ? new Set(allowed.mcpServers) : null;
    const base = [...builtinTools.filter((tool) => !builtins || builtins.has(tool.definition.name)), ...capabilityTools];
    const mcp = mcpTools.filter((tool) => !servers || (typeof tool.source === 'object' && servers.has(tool.source.mcpServer)));
    if (search && search.budgetTokens > 0 && definitionTokens(mcp) > search.budgetTokens) return new ToolRegistry(base, { tools: mcp, loaded: search.loaded });
    return new ToolRegistry([...base, ...mcp]);
  }

  /** Only the `allowed` of these (all when absent), then `extra` (a task's own tools). */
  narrowed(allowed: readonly string[] | undefined, extra: readonly Tool[]): ToolRegistry {
    const keep = allowed ? new Set(allowed) : null;
    const kept = (tool: Tool) => !keep || keep.has(tool.definition.name);
    const deferred = this.deferred && { ...this.deferred, tools: this.deferred.tools.filter(kept) };
    return new ToolRegistry([...this.tools.filter(kept), ...extra], deferred?.tools.length ? deferred : null);
  }

  /** Only the tools `keep` says yes to (the rights authority's offer), deferred ones too. */
  offered(keep: (tool: Tool) => boolean): ToolRegistry {
    const deferred = this.deferred && { ...this.deferred, tools: this.deferred.tools.filter(keep) };
    return new ToolRegistry(this.tools.filter(keep), deferred?.tools.length ? deferred : null);
  }

  /** Every tool of the registry, the searched-for ones too. */
  all(): readonly Tool[] {
    return [...this.tools, ...(this.deferred?.tools ?? [])];
  }

  get size(): number {
    return this.tools.length + (this.deferred?.tools.length ?? 0);
  }

  /** Whether the model searches for the MCP tools instead of seeing them all. */
  get searching(): boolean {
    return this.deferred !== null;
  }

  get(name: string): Tool | undefined {
    if (this.deferred && name === SEARCH_TOOLS_NAME) return this.searchTool();
    return this.byName.get(name);
  }

  private search: Tool | null = null;
  private searchTool(): Tool {
    this.search ??= searchToolsTool(this.deferred!.tools, this.deferred!.loaded) as Tool;
    return this.search;
  }

  /** The fixed tools, then (when searching) `search_tools` and the loaded ones in load order. */
  definitions(): ToolDefinition[] {
    const fixed = this.tools.map((tool) => tool.definition);
    if (!this.deferred) return fixed;
    const loaded = this.deferred.loaded.list().flatMap((name) => {
      const tool = this.deferred!.tools.find((candidate) => candidate.definition.name === name);
      return tool ? [tool.definition] : [];
    });
    return [...fixed, this.searchTool().definition, ...loaded];
  }
}
