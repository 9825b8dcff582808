// What a server's `tools/list` may put in front of the model (issue 41 §7). A hostile or broken
// server can list one name twice (providers refuse duplicate tool names: every request would
// fail), or send an input schema of megabytes that rides along on every request. Here each
// server's list is screened — the first of a name kept, a schema over the size or depth cap
// refused — and the model names of all servers are made unique (`x` + `y__z` and `x__y` + `z`
// would both be `x__y__z`): the later one takes the hashed form. Each decision is a note that
// Settings shows beside the server.
import { sha256Hex } from '@/lib/security/digest';
import { mcpToolName } from '@/lib/config/mcp-config';

/** An input schema's JSON, at most (a few hundred tokens' worth of schema is typical). */
export const MAX_SCHEMA_CHARS = 16_384;
export const MAX_SCHEMA_DEPTH = 16;

function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || value === null || typeof value !== 'object') return depth;
  let deepest = depth;
  for (const item of Object.values(value as Record<string, unknown>)) {
    deepest = Math.max(deepest, depthOf(item, limit, depth + 1));
    if (deepest > limit) break;
  }
  return deepest;
}

/** Why a tool's input schema is refused, or null. */
export function schemaRefusal(schema: unknown): string | null {
  const size = JSON.stringify(schema ?? {}).length;
  if (size > MAX_SCHEMA_CHARS) return `its input schema is ${size.toLocaleString('en')} characters (at most ${MAX_SCHEMA_CHARS.toLocaleString('en')})`;
  if (depthOf(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH) return `its input schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
  return null;
}

/** What screening reads of a listed tool. */
interface ListedTool {
  name: string;
  inputSchema?: unknown;
}

/** One server's list: duplicates and oversized schemas left out, with a note for each. */
export function screenServerTools<T extends ListedTool>(listed: readonly T[]): { tools: T[]; notes: string[] } {
  const seen = new Set<string>();
  const tools: T[] = [];
  const notes: string[] = [];
  for (const info of listed) {
    if (seen.has(info.name)) {
      notes.push(`The server lists the tool "${info.name}" more than once: only the first is used.`);
      continue;
    }
    seen.add(info.name);
    const refusal = schemaRefusal(info.inputSchema);
    if (refusal) {
      notes.push(`The tool "${info.name}" is left out: ${refusal}.`);
      continue;
    }
    tools.push(info);
  }
  return { tools, notes };
}

const hashedName = (server: string, tool: string) => `${mcpToolName(server, tool).replace(/_[0-9a-f]{6}$/, '').slice(0, 57)}_${sha256Hex(`${server}\u0000${tool}`).slice(0, 6)}`;

/**
 * The model name of every (server, tool), unique across servers: servers in name order, the first
 * to map to a name keeps it, a later one gets the hashed form. Keyed `server\0tool`.
 */
export function uniqueModelNames(entries: readonly { server: string; tool: string }[]): { names: Map<string, string>; notes: Map<string, string[]> } {
  const names = new Map<string, string>();
  const notes = new Map<string, string[]>();
  const owners = new Map<string, string>();
  const sorted = [...entries].sort((a, b) => a.server.localeCompare(b.server) || a.tool.localeCompare(b.tool));
  for (const { server, tool } of sorted) {
    let name = mcpToolName(server, tool);
    const owner = owners.get(name);
    if (owner !== undefined) {
      name = hashedName(server, tool);
      notes.set(server, [...(notes.get(server) ?? []), `The tool "${tool}" is offered to the model as ${name}: ${mcpToolName(server, tool)} is already ${owner}'s.`]);
    }
    owners.set(name, `${server} · ${tool}`);
    names.set(`${server}\u0000${tool}`, name);
  }
  return { names, notes };
}
