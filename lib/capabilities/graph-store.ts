// Where graphs live: one per persona (`capability_graphs`) and the snapshot each session was
// created with (`session_capabilities`). A stored graph is valid (checked before every write) and
// holds its secrets; callers that show it mask them (capability-set.ts).
import { getDb } from '@/lib/store/db';
import { capabilitiesOf, defaultGraph } from './capability-set';
import { validateGraph, type AgentGraph } from './validate';

function parseStored(text: string, what: string): AgentGraph {
  const checked = validateGraph(JSON.parse(text));
  if (!checked.ok) throw new Error(`The stored ${what} is invalid: ${checked.errors[0]?.message}`);
  return checked.graph;
}

export async function readPersonaGraph(personaName: string): Promise<AgentGraph | null> {
  const row = await (await getDb()).capabilityGraph.findUnique({ where: { personaName } });
  return row ? parseStored(row.graph, `graph of ${personaName}`) : null;
}

/** The persona's graph, or the default one (today's behaviour, with every MCP server). */
export async function effectivePersonaGraph(personaName: string, mcpServers: readonly string[], skills: readonly string[] = []): Promise<{ graph: AgentGraph; stored: boolean }> {
  const stored = await readPersonaGraph(personaName);
  return stored ? { graph: stored, stored: true } : { graph: defaultGraph(personaName, mcpServers, skills), stored: false };
}

export async function writePersonaGraph(personaName: string, graph: AgentGraph): Promise<void> {
  const stored = { graph: JSON.stringify(graph), updatedAt: new Date() };
  await (await getDb()).capabilityGraph.upsert({ where: { personaName }, create: { personaName, ...stored }, update: stored });
}

export async function snapshotSessionGraph(sessionId: string, graph: AgentGraph, fromDefault: boolean): Promise<void> {
  const stored = { graph: JSON.stringify(graph), fromDefault };
  await (await getDb()).sessionCapabilities.upsert({ where: { sessionId }, create: { sessionId, ...stored }, update: stored });
}

/** The graph the session was created with; null for sessions older than graphs. */
export async function readSessionGraph(sessionId: string): Promise<{ graph: AgentGraph; fromDefault: boolean } | null> {
  const row = await (await getDb()).sessionCapabilities.findUnique({ where: { sessionId } });
  return row ? { graph: parseStored(row.graph, `graph of session ${sessionId}`), fromDefault: row.fromDefault } : null;
}

/**
 * A session's tool choices seen through its graph: built-in tools and MCP servers the graph does
 * not connect are dropped. A default graph leaves the choices as they are (absent = all, and MCP
 * servers added later still count).
 */
export function narrowToGraph(params: { tools?: string[]; mcp_servers?: string[] }, snapshot: { graph: AgentGraph; fromDefault: boolean } | null): { tools?: string[]; mcp_servers?: string[] } {
  if (!snapshot || snapshot.fromDefault) return params;
  const capabilities = capabilitiesOf(snapshot.graph);
  return {
    tools: (params.tools ?? capabilities.builtinTools).filter((tool) => capabilities.builtinTools.includes(tool)),
    mcp_servers: (params.mcp_servers ?? capabilities.mcpServers).filter((server) => capabilities.mcpServers.includes(server)),
  };
}
