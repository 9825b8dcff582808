// Hostile and broken graphs (issue 18's security promise): each one sent to PUT
// /api/personas/:name/capabilities gets a clear 4xx with its reason, and the stored graph — and
// every other persona's — stays exactly as it was. The editor's import runs the same validator.
import { describe, expect, it } from 'vitest';
import * as capabilitiesRoute from '@/app/api/personas/[name]/capabilities/route';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import { GRAPH_ERROR_CODES, validateGraph } from '@/lib/capabilities/validate';
import { getDb } from '@/lib/store/db';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { target: '# Target\n' } });

const good = () => defaultGraph('target');
const withNode = (node: unknown) => ({ ...good(), nodes: [...good().nodes, node] });
const withEdge = (edge: unknown) => ({ ...good(), edges: [...good().edges, edge] });
const deep = (levels: number): unknown => (levels === 0 ? 'x' : { a: deep(levels - 1) });

const corpus: [string, unknown][] = [
  ['not an object', 'graph'],
  ['null', null],
  ['an array', [good()]],
  ['no nodes', { id: 'g', version: 1, edges: [] }],
  ['nodes not an array', { ...good(), nodes: { core: { type: 'agent.core' } } }],
  ['version zero', { ...good(), version: 0 }],
  ['version as a string', { ...good(), version: '1' }],
  ['an extra top-level key', { ...good(), owner: 'root' }],
  ['a __proto__ key at the top', JSON.parse(`{"id":"g","version":1,"nodes":[],"edges":[],"__proto__":{"polluted":true}}`)],
  ['a node id of 101 characters', withNode({ id: 'x'.repeat(101), type: 'tool.bash' })],
  ['an empty node id', withNode({ id: '', type: 'tool.bash' })],
  ['a type with a path in it', withNode({ id: 'evil', type: '../../etc/passwd' })],
  ['a type that is a prototype key', withNode({ id: 'evil', type: 'constructor' })],
  ['a type of __proto__', withNode({ id: 'evil', type: '__proto__' })],
  ['a node id of __proto__ unconnected', withNode({ id: '__proto__', type: 'tool.bash' })],
  ['a config that is an array', withNode({ id: 'h', type: 'tool.http', config: ['GET'] })],
  ['a config with unknown keys', withNode({ id: 'h', type: 'tool.http', config: { allowed_hosts: ['a.b'], exec: 'rm -rf /' } })],
  ['an allowed host with a path', withNode({ id: 'h', type: 'tool.http', config: { allowed_hosts: ['evil.com/../x'] } })],
  ['an allowed host with a scheme', withNode({ id: 'h', type: 'tool.http', config: { allowed_hosts: ['http://evil.com'] } })],
  ['a method that is not HTTP', withNode({ id: 'h', type: 'tool.http', config: { methods: ['CONNECT'] } })],
  ['a deeply nested config', withNode({ id: 'c2', type: 'response.chat', config: deep(200) as Record<string, unknown> })],
  ['a 1 MB instructions string', { ...good(), nodes: good().nodes.map((node) => (node.type === 'agent.core' ? { ...node, config: { instructions: 'x'.repeat(1_000_000) } } : node)) }],
  ['a position that is not finite', withNode({ id: 'p', type: 'response.end', position: { x: 1e400, y: 0 } })],
  ['an edge into a trigger', withEdge({ id: 'x1', source: 'core', target: 'input' })],
  ['an edge from a capability', withEdge({ id: 'x2', source: 'bash', target: 'core' })],
  ['a self-loop', withEdge({ id: 'x3', source: 'core', target: 'core' })],
  ['an edge to nowhere', withEdge({ id: 'x4', source: 'core', target: '__proto__' })],
  ['an edge with extra keys', withEdge({ id: 'x5', source: 'core', target: 'bash', label: 'then run' })],
  ['the same edge twice', withEdge({ id: 'x6', source: 'core', target: 'bash' })],
  ['two cores', withNode({ id: 'core2', type: 'agent.core' })],
  ['the model removed', { ...good(), nodes: good().nodes.filter((node) => node.type !== 'model.llm'), edges: good().edges.filter((edge) => !edge.target.endsWith('_model')) }],
  ['5,001 nodes', { ...good(), nodes: Array.from({ length: 5_001 }, (_, index) => ({ id: `n${index}`, type: 'tool.mcp', config: { server: `s${index}` } })) }],
  ['start pointing at a tool', { ...good(), start: 'bash' }],
  ['a second bash', withNode({ id: 'bash2', type: 'tool.bash' })],
  ['two MCP nodes for one server', { ...good(), nodes: [...good().nodes, { id: 'm1', type: 'tool.mcp', config: { server: 'gh' } }, { id: 'm2', type: 'tool.mcp', config: { server: 'gh' } }], edges: [...good().edges, { id: 'em1', source: 'core', target: 'm1' }, { id: 'em2', source: 'core', target: 'm2' }] }],
];

const put = (body: string) =>
  capabilitiesRoute.PUT(new Request('http://x/api', { method: 'PUT', body, headers: { 'content-type': 'application/json' } }), { params: Promise.resolve({ name: 'target' }) });

describe('hostile graphs change nothing', () => {
  it(`holds ${corpus.length} cases, each refused with its reason; the stored graph is untouched`, async () => {
    const stored = good();
    stored.nodes = stored.nodes.filter((node) => node.id !== 'python');
    stored.edges = stored.edges.filter((edge) => edge.target !== 'python');
    expect((await put(JSON.stringify({ graph: stored }))).status).toBe(200);
    const db = await getDb();
    const before = await db.capabilityGraph.findMany();
    for (const [name, graph] of corpus) {
      const response = await put(JSON.stringify({ graph }));
      expect([400, 413], name).toContain(response.status);
      const body = (await response.json()) as { error: { code: string; message: string; details?: { code: string; path: string }[] } };
      expect(body.error.message.length, name).toBeGreaterThan(0);
      if (response.status === 400 && body.error.code === 'invalid_graph') {
        for (const detail of body.error.details!) expect(GRAPH_ERROR_CODES, name).toContain(detail.code);
      }
      // The editor's import path: the same validator, the same refusal.
      if (response.status === 400) expect(validateGraph(graph).ok, name).toBe(false);
    }
    expect(await db.capabilityGraph.findMany()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Not JSON at all, and a body past the size cap.
    expect((await put('{"graph":')).status).toBe(400);
    expect([400, 413]).toContain((await put(JSON.stringify({ graph: { ...good(), pad: 'x'.repeat(70 * 1024 * 1024) } }))).status);
  }, 60_000);
});
