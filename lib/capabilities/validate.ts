// The one validator of agent graphs (seed 004 §9, ARCHITECTURE §13), pure: the API, the runtime and
// the editor call it. It returns *every* error, each with a code and a path built from ids (never
// positions), sorted — so any order of the same nodes and edges gives the same answer.
import { z } from 'zod';
import { configSchema, isNodeType, kindOf, type NodeType } from './node-types';
import { canConnect, CARDINALITY } from './rules';

export const GRAPH_ERROR_CODES = [
  'NO_AGENT_CORE',
  'MULTIPLE_AGENT_CORES',
  'CAPABILITY_NOT_CONNECTED',
  'NO_MODEL',
  'INVALID_EDGE',
  'DANGLING_EDGE',
  'DUPLICATE_EDGE',
  'UNKNOWN_NODE_TYPE',
  'INVALID_CONFIG',
] as const;
export type GraphErrorCode = (typeof GRAPH_ERROR_CODES)[number];

export interface GraphError {
  code: GraphErrorCode;
  message: string;
  path: string;
}

/** Names every JavaScript object answers to (`__proto__`, `constructor`, `toString`…): never an id, so no lookup by id can reach them. */
const RESERVED_IDS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);
const idSchema = z
  .string()
  .min(1)
  .max(100)
  .refine((id) => !RESERVED_IDS.has(id), { message: 'an id may not be a name JavaScript objects reserve (such as __proto__ or constructor)' });

/** The seed's shape: `{id, version, start?, nodes: [{id, type, config}], edges: [{id, source, target}]}`; positions for the editor. */
export const agentGraphSchema = z
  .object({
    id: idSchema,
    version: z.number().int().min(1).max(1_000_000),
    start: idSchema.optional(),
    nodes: z
      .array(
        z
          .object({
            id: idSchema,
            type: z.string().min(1).max(100),
            config: z.record(z.string(), z.unknown()).optional(),
            position: z.object({ x: z.number().finite(), y: z.number().finite() }).strict().optional(),
          })
          .strict(),
      )
      .max(5_000),
    edges: z.array(z.object({ id: idSchema, source: idSchema, target: idSchema }).strict()).max(20_000),
  })
  .strict();
export type AgentGraph = z.infer<typeof agentGraphSchema>;
export type GraphNode = AgentGraph['nodes'][number];

export type GraphValidation = { ok: true; errors: []; graph: AgentGraph } | { ok: false; errors: GraphError[]; graph: AgentGraph | null };

export function validateGraph(input: unknown): GraphValidation {
  const parsed = agentGraphSchema.safeParse(input);
  if (!parsed.success) {
    // The shape itself is wrong: say where, and stop (nothing below can be trusted).
    const errors = parsed.error.issues.map((issue) => ({ code: 'INVALID_CONFIG' as const, message: `The graph's shape: ${issue.message}`, path: shapePath(input, issue.path) }));
    return { ok: false, errors: sorted(errors), graph: null };
  }
  const graph = parsed.data;
  const errors: GraphError[] = [];
  const byId = new Map<string, GraphNode[]>();
  for (const node of graph.nodes) byId.set(node.id, [...(byId.get(node.id) ?? []), node]);
  for (const [id, nodes] of byId) {
    if (nodes.length > 1) errors.push({ code: 'INVALID_CONFIG', message: `${nodes.length} nodes have the id "${id}"`, path: `nodes[${id}]` });
  }
  const typeOf = new Map<string, NodeType>();
  for (const node of graph.nodes) {
    if (!isNodeType(node.type)) {
      errors.push({ code: 'UNKNOWN_NODE_TYPE', message: `"${node.type}" is not a node type`, path: `nodes[${node.id}].type` });
      continue;
    }
    // A duplicated id names no node in particular: only its duplication is reported.
    if (byId.get(node.id)!.length === 1) typeOf.set(node.id, node.type);
    const config = configSchema(node.type).safeParse(node.config ?? {});
    if (!config.success) {
      for (const issue of config.error.issues) {
        errors.push({ code: 'INVALID_CONFIG', message: `${node.type}: ${issue.message}`, path: `nodes[${node.id}].config${issue.path.map((part) => `.${String(part)}`).join('')}` });
      }
    }
  }

  const edgeIds = new Map<string, number>();
  const pairs = new Map<string, string[]>();
  for (const edge of graph.edges) {
    edgeIds.set(edge.id, (edgeIds.get(edge.id) ?? 0) + 1);
    const path = `edges[${edge.id}]`;
    const missing = [edge.source, edge.target].filter((id) => !byId.has(id));
    if (missing.length > 0) {
      errors.push({ code: 'DANGLING_EDGE', message: `Edge ${edge.id} points at no node: ${[...new Set(missing)].join(', ')}`, path });
      continue;
    }
    if (edge.source === edge.target) {
      errors.push({ code: 'INVALID_EDGE', message: `Edge ${edge.id} connects ${edge.source} to itself`, path });
      continue;
    }
    const source = typeOf.get(edge.source);
    const target = typeOf.get(edge.target);
    if (source && target) {
      const verdict = canConnect(source, target);
      if (!verdict.ok) errors.push({ code: 'INVALID_EDGE', message: `${edge.source} → ${edge.target}: ${verdict.reason}`, path });
    }
    const pair = `${edge.source}->${edge.target}`;
    pairs.set(pair, [...(pairs.get(pair) ?? []), edge.id]);
  }
  for (const [id, count] of edgeIds) if (count > 1) errors.push({ code: 'DUPLICATE_EDGE', message: `${count} edges have the id "${id}"`, path: `edges[${id}]` });
  for (const [pair, ids] of pairs) {
    if (ids.length > 1) errors.push({ code: 'DUPLICATE_EDGE', message: `${pair.replace('->', ' → ')} is connected ${ids.length} times (${[...ids].sort().join(', ')})`, path: `edges[${pair}]` });
  }

  const counts = new Map<NodeType, number>();
  for (const type of typeOf.values()) counts.set(type, (counts.get(type) ?? 0) + 1);
  const cores = [...typeOf].filter(([, type]) => type === 'agent.core').map(([id]) => id);
  if (cores.length === 0) errors.push({ code: 'NO_AGENT_CORE', message: 'The graph needs one agent.core: the node that decides', path: 'nodes' });
  if (cores.length > 1) errors.push({ code: 'MULTIPLE_AGENT_CORES', message: `The graph has ${cores.length} agent.core nodes (${cores.sort().join(', ')}); exactly one decides`, path: 'nodes' });
  for (const [type, limit] of Object.entries(CARDINALITY) as [NodeType, { max?: number }][]) {
    if (type === 'agent.core' || limit.max === undefined) continue;
    const count = counts.get(type) ?? 0;
    if (count > limit.max) errors.push({ code: 'INVALID_CONFIG', message: `At most ${limit.max} ${type} node${limit.max === 1 ? '' : 's'} (there are ${count})`, path: 'nodes' });
  }
  errors.push(...sameValueErrors(graph, 'model.llm', (node) => (node.config?.role as string | undefined) ?? null, (value) => `two models have the role ${value}`));
  errors.push(...sameValueErrors(graph, 'tool.mcp', (node) => (node.config?.server as string | undefined) ?? null, (value) => `the MCP server "${value}" is there twice`));

  if (cores.length === 1) {
    const core = cores[0]!;
    const connected = new Set(graph.edges.filter((edge) => edge.source === core).map((edge) => edge.target));
    for (const [id, type] of typeOf) {
      if (kindOf(type) !== 'capability' || connected.has(id)) continue;
      errors.push({ code: 'CAPABILITY_NOT_CONNECTED', message: `${id} (${type}) is not connected to agent.core ${core}`, path: `nodes[${id}]` });
    }
    if (![...connected].some((id) => typeOf.get(id) === 'model.llm')) {
      errors.push({ code: 'NO_MODEL', message: `agent.core ${core} has no model.llm connected: it cannot think`, path: `nodes[${core}]` });
    }
  }
  if (graph.start !== undefined && !(typeOf.has(graph.start) && kindOf(typeOf.get(graph.start)!) === 'trigger')) {
    errors.push({ code: 'INVALID_CONFIG', message: `start must name a trigger node ("${graph.start}" is not one)`, path: 'start' });
  }
  return errors.length === 0 ? { ok: true, errors: [], graph } : { ok: false, errors: sorted(errors), graph };
}

function sameValueErrors(graph: AgentGraph, type: NodeType, valueOf: (node: GraphNode) => string | null, message: (value: string) => string): GraphError[] {
  const seen = new Map<string, string[]>();
  for (const node of graph.nodes) {
    if (node.type !== type) continue;
    const value = valueOf(node);
    if (value !== null) seen.set(value, [...(seen.get(value) ?? []), node.id]);
  }
  return [...seen]
    .filter(([, ids]) => ids.length > 1)
    .map(([value, ids]) => ({ code: 'INVALID_CONFIG' as const, message: `${type}: ${message(value)} (${[...ids].sort().join(', ')})`, path: `nodes[${[...ids].sort().join(',')}]` }));
}

function sorted(errors: GraphError[]): GraphError[] {
  return errors.sort((a, b) => a.path.localeCompare(b.path) || a.code.localeCompare(b.code) || a.message.localeCompare(b.message));
}

/** A zod path inside the raw input, with node and edge ids in place of positions where they exist. */
function shapePath(input: unknown, path: readonly PropertyKey[]): string {
  let text = '';
  let current: unknown = input;
  for (const part of path) {
    const next = current !== null && typeof current === 'object' ? (current as Record<PropertyKey, unknown>)[part as string] : undefined;
    if (typeof part === 'number') {
      const id = next !== null && typeof next === 'object' ? (next as { id?: unknown }).id : undefined;
      text += `[${typeof id === 'string' ? id : part}]`;
    } else text += `${text ? '.' : ''}${String(part)}`;
    current = next;
  }
  return text || '(graph)';
}
