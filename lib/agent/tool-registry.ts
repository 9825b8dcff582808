// The one tool registry (ARCHITECTURE §10): the tools a session may use, in a fixed order (the
// definitions are part of the cached prompt prefix), looked up by the name the model called.
import { BUILTIN_TOOL_NAMES } from '@/lib/tools/builtin-tool-names';
import { fileTools } from '@/lib/tools/file-tools';
import { shellTools } from '@/lib/tools/shell-tools';
import { memoryTools } from '@/lib/memory/memory-tools';
import { scheduleTool } from '@/lib/triggers/schedule-tool';
import type { Tool, ToolDefinition } from '@/lib/tools/tool-types';

/** Every built-in tool, in the order models see them. */
export const builtinTools: readonly Tool[] = [...fileTools, ...shellTools, ...memoryTools, scheduleTool] as Tool[];

export const builtinToolNames: readonly string[] = BUILTIN_TOOL_NAMES;

// The pure list the forms use must be the registry's own, in the same order.
if (builtinTools.map((tool) => tool.definition.name).join() !== BUILTIN_TOOL_NAMES.join()) {
  throw new Error('lib/tools/builtin-tool-names.ts disagrees with the built-in tools');
}

export class ToolRegistry {
  private readonly byName: Map<string, Tool>;

  constructor(private readonly tools: readonly Tool[]) {
    this.byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  }

  /**
   * The session's tools: the built-ins it allows (absent: all), its graph's configured tools (HTTP), then the tools of the MCP servers
   * it allows (absent: every server the user left on), in the pool's sorted order — a fixed
   * order, so the definitions stay inside the cached prompt prefix.
   */
  static forSession(allowed: { builtins?: readonly string[]; mcpServers?: readonly string[] }, mcpTools: readonly Tool[] = [], capabilityTools: readonly Tool[] = []): ToolRegistry {
    const builtins = allowed.builtins ? new Set(allowed.builtins) : null;
    const servers = allowed.mcpServers ? new Set(allowed.mcpServers) : null;
    return new ToolRegistry([
      ...builtinTools.filter((tool) => !builtins || builtins.has(tool.definition.name)),
      ...capabilityTools,
      ...mcpTools.filter((tool) => !servers || (typeof tool.source === 'object' && servers.has(tool.source.mcpServer))),
    ]);
  }

  /** Only the `allowed` of these (all when absent), then `extra` (a task's own tools). */
  narrowed(allowed: readonly string[] | undefined, extra: readonly Tool[]): ToolRegistry {
    const keep = allowed ? new Set(allowed) : null;
    return new ToolRegistry([...this.tools.filter((tool) => !keep || keep.has(tool.definition.name)), ...extra]);
  }

  get size(): number {
    return this.tools.length;
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  definitions(): ToolDefinition[] {
    return this.tools.map((tool) => tool.definition);
  }
}
