// The agent-graph validator and its rule table (seed 004): the seed's own example validates as
// written; one fixture per error code gives exactly that code; the type × type matrix is fixed by a
// snapshot; any permutation of the same nodes and edges gives the same errors and capabilities.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TOOL_NAMES } from '@/lib/tools/builtin-tool-names';
import { capabilitiesOf, defaultGraph, maskGraphSecrets, restoreGraphSecrets, SECRET_MASK } from './capability-set';
import { NODE_TYPES } from './node-types';
import { canConnect, connectionMatrix } from './rules';
import { validateGraph, type AgentGraph, type GraphErrorCode } from './validate';

/** Seed 004 §13, "Ejemplo Correcto (MVP2)", exactly as written there (the e2e imports the same file). */
const seedExample = JSON.parse(fs.readFileSync(path.resolve('test/fixtures/seed-004-example-graph.json'), 'utf8')) as unknown;

const base = () => structuredClone(seedExample) as AgentGraph;
const codes = (graph: unknown) => validateGraph(graph).errors.map((error) => error.code);

describe('agent graphs', () => {
  it("validates the seed's example as written, with what it connects", () => {
    const checked = validateGraph(seedExample);
    expect(checked).toMatchObject({ ok: true, errors: [] });
    const capabilities = capabilitiesOf(checked.graph!);
    expect(capabilities).toMatchObject({ core: 'agent1', instructions: 'Eres un asistente útil', models: { c_model: 'llm1', s_model: 'llm1' }, chat: true, end: false, mcpServers: [] });
    expect(capabilities.builtinTools).toEqual(['recall', 'remember', 'journal', 'forget_memory']);
    expect(capabilities.http).toEqual({ method: 'GET', url: 'https://api.example.com/data' });
  });

  const fixtures: Record<GraphErrorCode, (graph: AgentGraph) => unknown> = {
    NO_AGENT_CORE: (graph) => ({ ...graph, nodes: graph.nodes.filter((node) => node.type === 'trigger.input'), edges: [] }),
    MULTIPLE_AGENT_CORES: (graph) => ({ ...graph, nodes: [...graph.nodes, { id: 'agent2', type: 'agent.core' }] }),
    CAPABILITY_NOT_CONNECTED: (graph) => ({ ...graph, edges: graph.edges.filter((edge) => edge.id !== 'e4') }),
    NO_MODEL: (graph) => ({ ...graph, nodes: graph.nodes.filter((node) => node.id !== 'llm1'), edges: graph.edges.filter((edge) => edge.id !== 'e2') }),
    INVALID_EDGE: (graph) => ({ ...graph, edges: [...graph.edges, { id: 'e6', source: 'http1', target: 'memory1' }] }),
    DANGLING_EDGE: (graph) => ({ ...graph, edges: [...graph.edges, { id: 'e6', source: 'agent1', target: 'ghost' }] }),
    DUPLICATE_EDGE: (graph) => ({ ...graph, edges: [...graph.edges, { id: 'e6', source: 'agent1', target: 'llm1' }] }),
    UNKNOWN_NODE_TYPE: (graph) => ({ ...graph, nodes: [...graph.nodes, { id: 'x1', type: 'tool.teleport' }] }),
    INVALID_CONFIG: (graph) => ({ ...graph, nodes: graph.nodes.map((node) => (node.id === 'http1' ? { ...node, config: { method: 'YEET' } } : node)) }),
  };
  for (const [code, make] of Object.entries(fixtures)) {
    it(`a graph with one ${code} problem gives exactly ${code}, with a path`, () => {
      const checked = validateGraph(make(base()));
      expect(checked.errors.map((error) => error.code)).toEqual([code]);
      expect(checked.errors[0]!.path).not.toBe('');
      expect(checked.ok).toBe(false);
    });
  }

  it('returns every error at once, each with its path', () => {
    const graph = base();
    graph.nodes.push({ id: 'agent2', type: 'agent.core' }, { id: 'stray', type: 'tool.bash' }, { id: 'odd', type: 'tool.teleport' });
    graph.edges.push({ id: 'e9', source: 'stray', target: 'stray' }, { id: 'e1', source: 'agent1', target: 'nowhere' });
    expect(validateGraph(graph).errors.map((error) => `${error.code} ${error.path}`)).toEqual([
      'DANGLING_EDGE edges[e1]',
      'DUPLICATE_EDGE edges[e1]',
      'INVALID_EDGE edges[e9]',
      'MULTIPLE_AGENT_CORES nodes',
      'UNKNOWN_NODE_TYPE nodes[odd].type',
    ]);
    expect(codes({ nodes: 'many' })).toContain('INVALID_CONFIG');
    expect(validateGraph({ id: 'g', version: 1, nodes: [{ id: 'n', type: 'agent.core', extra: 1 }], edges: [] }).errors[0]).toMatchObject({ code: 'INVALID_CONFIG', path: 'nodes[n]' });
  });

  it('edges mean "available": trigger → core and core → capability only', () => {
    expect(canConnect('agent.core', 'tool.bash')).toEqual({ ok: true });
    expect(canConnect('trigger.input', 'agent.core')).toEqual({ ok: true });
    expect(canConnect('tool.bash', 'tool.files')).toMatchObject({ ok: false, reason: expect.stringContaining('capabilities are used by agent.core') });
    expect(canConnect('agent.core', 'trigger.input')).toMatchObject({ ok: false });
    expect(canConnect('agent.core', 'agent.core')).toMatchObject({ ok: false });
    expect(connectionMatrix()).toMatchSnapshot();
  });

  it('the default graph is valid and gives every built-in tool and MCP server', () => {
    const graph = defaultGraph('iris', ['github', 'files']);
    const checked = validateGraph(graph);
    expect(checked.errors).toEqual([]);
    expect(capabilitiesOf(graph)).toMatchObject({ builtinTools: [...BUILTIN_TOOL_NAMES], mcpServers: ['files', 'github'], models: { c_model: 'c_model', s_model: 's_model' }, chat: true, end: true });
  });

  it('a connection string is masked for browsers and exports, and a masked value keeps the stored one', () => {
    const graph = base();
    graph.nodes.push({ id: 'pg', type: 'tool.postgres', config: { connection: 'postgres://u:secret@127.0.0.1/db' } });
    graph.edges.push({ id: 'e7', source: 'agent1', target: 'pg' });
    const masked = maskGraphSecrets(graph);
    expect(JSON.stringify(masked)).not.toContain('secret');
    expect(restoreGraphSecrets(masked, graph).nodes.find((node) => node.id === 'pg')!.config!.connection).toBe('postgres://u:secret@127.0.0.1/db');
    // A mask on another node id (an import, say) brings no secret with it.
    const renamed = { ...masked, nodes: masked.nodes.map((node) => (node.id === 'pg' ? { ...node, id: 'pg2' } : node)) };
    expect(restoreGraphSecrets(renamed, graph).nodes.find((node) => node.id === 'pg2')!.config).toEqual({});
    expect(SECRET_MASK).toBe('••••');
  });
});

describe('order never matters', () => {
  const nodeArb = fc.record({
    id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'core', 'core2'),
    type: fc.constantFrom(...NODE_TYPES, 'tool.unknown'),
  });
  const edgeArb = fc.record({ id: fc.constantFrom('e1', 'e2', 'e3', 'e4', 'e5', 'e6'), source: fc.constantFrom('a', 'b', 'c', 'core', 'x'), target: fc.constantFrom('a', 'd', 'e', 'f', 'core') });
  const graphArb = fc.record({ nodes: fc.array(nodeArb, { maxLength: 10 }), edges: fc.array(edgeArb, { maxLength: 10 }) }).map(({ nodes, edges }) => ({ id: 'g', version: 1, nodes: [{ id: 'core', type: 'agent.core' }, ...nodes], edges }));

  it('any permutation of nodes and edges gives the same validation and the same capabilities', () => {
    fc.assert(
      fc.property(graphArb, fc.infiniteStream(fc.nat()), (graph, seeds) => {
        const shuffle = <T>(items: T[]) =>
          items
            .map((item) => ({ item, key: seeds.next().value }))
            .sort((a, b) => a.key - b.key)
            .map(({ item }) => item);
        const permuted = { ...graph, nodes: shuffle(graph.nodes), edges: shuffle(graph.edges) };
        const first = validateGraph(graph);
        const second = validateGraph(permuted);
        expect(second.errors).toEqual(first.errors);
        if (first.ok && second.ok) expect(capabilitiesOf(second.graph)).toEqual(capabilitiesOf(first.graph));
      }),
      { numRuns: 300 },
    );
  });
});
