// What an agent may use, read from its graph: only what agent.core is connected to (every edge
// from it counts; none is "the first"). A persona without a graph gets the default graph, equal to
// what a session could do before graphs existed.
import { BUILTIN_TOOL_NAMES } from '@/lib/tools/builtin-tool-names';
import type { NodeConfig, NodeType } from './node-types';
import type { AgentGraph, GraphNode } from './validate';

/** The built-in tools each capability brings. */
export const TOOLS_OF: Partial<Record<NodeType, readonly string[]>> = {
  'tool.files': ['read_file', 'write_file', 'edit_file', 'list_files', 'grep', 'view_image', 'show_file'],
  'tool.bash': ['bash'],
  'tool.python': ['python'],
  'memory.kv': ['recall', 'remember', 'journal', 'forget_memory'],
};

export interface CapabilitySet {
  core: string;
  instructions: string | null;
  /** The model.llm node of each layer (a model without a role serves both). */
  models: { c_model: string | null; s_model: string | null };
  /** Built-in tools, in the models' order. */
  builtinTools: string[];
  /** MCP servers by name, sorted. */
  mcpServers: string[];
  /** Skills by name, sorted (issue 34). */
  skills: string[];
  /** Personas it may delegate to (`agent.delegate`), sorted. */
  specialists: string[];
  http: NodeConfig<'tool.http'> | null;
  browser: NodeConfig<'tool.browser'> | null;
  postgres: NodeConfig<'tool.postgres'> | null;
  chat: boolean;
  end: boolean;
}

/** The capabilities of a valid graph (validateGraph first). */
export function capabilitiesOf(graph: AgentGraph): CapabilitySet {
  const core = graph.nodes.find((node) => node.type === 'agent.core');
  if (!core) throw new Error('capabilitiesOf needs a validated graph: it has no agent.core');
  const targets = new Set(graph.edges.filter((edge) => edge.source === core.id).map((edge) => edge.target));
  const connected = graph.nodes.filter((node) => targets.has(node.id)).sort((a, b) => a.id.localeCompare(b.id));
  const ofType = (type: NodeType) => connected.filter((node) => node.type === type);
  const tools = new Set<string>();
  // Triggers point at the core: a schedule trigger brings the agent its own `schedule` tool.
  const triggerIds = new Set(graph.edges.filter((edge) => edge.target === core.id).map((edge) => edge.source));
  const triggers = graph.nodes.filter((node) => triggerIds.has(node.id));
  if (triggers.some((node) => node.type === 'trigger.schedule')) tools.add('schedule');
  for (const node of connected) {
    const brought = node.type === 'memory.kv' && node.config?.read_only === true ? ['recall'] : (TOOLS_OF[node.type as NodeType] ?? []);
    for (const tool of brought) tools.add(tool);
  }
  const models = ofType('model.llm');
  const forRole = (role: 'c_model' | 's_model') => (models.find((node) => node.config?.role === role) ?? models.find((node) => node.config?.role === undefined))?.id ?? null;
  const config = <T extends NodeType>(node: GraphNode | undefined) => (node ? ((node.config ?? {}) as NodeConfig<T>) : null);
  return {
    core: core.id,
    instructions: typeof core.config?.instructions === 'string' ? core.config.instructions : null,
    models: { c_model: forRole('c_model'), s_model: forRole('s_model') },
    builtinTools: BUILTIN_TOOL_NAMES.filter((name) => tools.has(name)),
    mcpServers: [...new Set(ofType('tool.mcp').map((node) => String(node.config?.server)))].sort(),
    skills: [...new Set(ofType('skill').map((node) => String(node.config?.name)))].sort(),
    specialists: [...new Set(ofType('agent.delegate').map((node) => String(node.config?.persona)))].sort(),
    http: config<'tool.http'>(ofType('tool.http')[0]),
    browser: config<'tool.browser'>(ofType('tool.browser')[0]),
    postgres: config<'tool.postgres'>(ofType('tool.postgres')[0]),
    chat: ofType('response.chat').length > 0,
    end: ofType('response.end').length > 0,
  };
}

/** Today's behaviour as a graph: messages, schedules and webhooks wake it; both models, memory, files, bash, python, every MCP server, every skill, chat and end. */
export function defaultGraph(personaName: string, mcpServers: readonly string[] = [], skills: readonly string[] = []): AgentGraph {
  const capabilities: GraphNode[] = [
    { id: 'c_model', type: 'model.llm', config: { role: 'c_model' } },
    { id: 's_model', type: 'model.llm', config: { role: 's_model' } },
    { id: 'memory', type: 'memory.kv', config: {} },
    { id: 'files', type: 'tool.files', config: {} },
    { id: 'bash', type: 'tool.bash', config: {} },
    { id: 'python', type: 'tool.python', config: {} },
    ...mcpServers.map((server) => ({ id: `mcp_${server}`, type: 'tool.mcp', config: { server } })),
    ...skills.map((name) => ({ id: `skill_${name}`, type: 'skill', config: { name } })),
    { id: 'chat', type: 'response.chat', config: { format: 'markdown' } },
    { id: 'end', type: 'response.end', config: {} },
  ];
  // The trigger above the core, the capabilities in rows below it: every edge runs downwards.
  const columns = Math.ceil(capabilities.length / 2);
  const around = capabilities.map((node, index) => ({
    ...node,
    position: { x: 400 + ((index % columns) - (columns - 1) / 2) * 200, y: 300 + Math.floor(index / columns) * 140 },
  }));
  return {
    id: `${personaName}-agent`,
    version: 1,
    start: 'input',
    nodes: [
      { id: 'input', type: 'trigger.input', config: {}, position: { x: 400, y: 0 } },
      { id: 'schedule', type: 'trigger.schedule', config: {}, position: { x: 200, y: 0 } },
      { id: 'webhook', type: 'trigger.webhook', config: {}, position: { x: 600, y: 0 } },
      { id: 'core', type: 'agent.core', config: { strategy: 'reactive' }, position: { x: 400, y: 140 } },
      ...around,
    ],
    edges: [
      { id: 'e_input', source: 'input', target: 'core' },
      { id: 'e_schedule', source: 'schedule', target: 'core' },
      { id: 'e_webhook', source: 'webhook', target: 'core' },
      ...capabilities.map((node) => ({ id: `e_${node.id}`, source: 'core', target: node.id })),
    ],
  };
}

/** Connection strings are secrets: a browser, an export or an event sees only that one is set. */
export const SECRET_MASK = '••••';

export function maskGraphSecrets(graph: AgentGraph): AgentGraph {
  return {
    ...graph,
    nodes: graph.nodes.map((node) => (node.type === 'tool.postgres' && typeof node.config?.connection === 'string' ? { ...node, config: { ...node.config, connection: SECRET_MASK } } : node)),
  };
}

/** A masked value submitted back keeps the stored secret of the same node (by id); anything else is new. */
export function restoreGraphSecrets(submitted: AgentGraph, stored: AgentGraph | null): AgentGraph {
  const storedConnection = new Map((stored?.nodes ?? []).map((node) => [node.id, node.config?.connection]));
  return {
    ...submitted,
    nodes: submitted.nodes.map((node) => {
      if (node.config?.connection !== SECRET_MASK) return node;
      const kept = storedConnection.get(node.id);
      const config = { ...node.config };
      if (typeof kept === 'string') config.connection = kept;
      else delete config.connection;
      return { ...node, config };
    }),
  };
}

/** The graph with the skill connected to its core (or without it): how the Skills page enables a skill for a persona. */
export function withSkill(graph: AgentGraph, name: string, enabled: boolean): AgentGraph {
  const core = graph.nodes.find((node) => node.type === 'agent.core');
  if (!core) return graph;
  const existing = graph.nodes.filter((node) => node.type === 'skill' && node.config?.name === name).map((node) => node.id);
  if (!enabled) {
    const gone = new Set(existing);
    return { ...graph, nodes: graph.nodes.filter((node) => !gone.has(node.id)), edges: graph.edges.filter((edge) => !gone.has(edge.source) && !gone.has(edge.target)) };
  }
  if (existing.some((id) => graph.edges.some((edge) => edge.source === core.id && edge.target === id))) return graph;
  let id = `skill_${name}`;
  for (let index = 2; graph.nodes.some((node) => node.id === id); index++) id = `skill_${name}_${index}`;
  const below = Math.max(0, ...graph.nodes.map((node) => node.position?.y ?? 0)) + 140;
  return {
    ...graph,
    nodes: [...graph.nodes, { id, type: 'skill', config: { name }, position: { x: core.position?.x ?? 400, y: below } }],
    edges: [...graph.edges, { id: `e_${id}`, source: core.id, target: id }],
  };
}
