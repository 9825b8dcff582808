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
/** A node joined to the core, as a capability must be: only what the case breaks is wrong with it. */
const withLinked = (node: { id: string }) => ({ ...withNode(node), edges: [...good().edges, { id: `to-${node.id}`, source: 'core', target: node.id }] });
const withEdge = (edge: unknown) => ({ ...good(), edges: [...good().edges, edge] });
const deep = (levels: number): unknown => (levels === 0 ? 'x' : { a: deep(levels - 1) });

/** What a case is refused with: the validator's codes (all of them) and where the first points, or a status of its own. */
type Refusal = { codes: string[]; at: string } | { status: 413 };
const graphError = (codes: string | string[], at: string): Refusal => ({ codes: [codes].flat(), at });

const corpus: [string, unknown, Refusal][] = [
  ['not an object', 'graph', graphError('INVALID_CONFIG', '(graph)')],
  ['null', null, graphError('INVALID_CONFIG', '(graph)')],
  ['an array', [good()], graphError('INVALID_CONFIG', '(graph)')],
  ['no nodes', { id: 'g', version: 1, edges: [] }, graphError('INVALID_CONFIG', 'nodes')],
  ['nodes not an array', { ...good(), nodes: { core: { type: 'agent.core' } } }, graphError('INVALID_CONFIG', 'nodes')],
  ['version zero', { ...good(), version: 0 }, graphError('INVALID_CONFIG', 'version')],
  ['version as a string', { ...good(), version: '1' }, graphError('INVALID_CONFIG', 'version')],
  ['an extra top-level key', { ...good(), owner: 'root' }, graphError('INVALID_CONFIG', '(graph)')],
  ['a __proto__ key at the top', JSON.parse(`{"id":"g","version":1,"nodes":[],"edges":[],"__proto__":{"polluted":true}}`), graphError('INVALID_CONFIG', '(graph)')],
  ['a node id of 101 characters', withNode({ id: 'x'.repeat(101), type: 'tool.http', config: {} }), graphError('INVALID_CONFIG', `nodes[${'x'.repeat(101)}].id`)],
  ['an empty node id', withNode({ id: '', type: 'tool.http', config: {} }), graphError('INVALID_CONFIG', 'nodes[].id')],
  ['a type with a path in it', withLinked({ id: 'evil', type: '../../etc/passwd' } as { id: string }), graphError('UNKNOWN_NODE_TYPE', 'nodes[evil].type')],
  ['a type that is a prototype key', withLinked({ id: 'evil', type: 'constructor' } as { id: string }), graphError('UNKNOWN_NODE_TYPE', 'nodes[evil].type')],
  ['a type of __proto__', withLinked({ id: 'evil', type: '__proto__' } as { id: string }), graphError('UNKNOWN_NODE_TYPE', 'nodes[evil].type')],
  ['a node id of __proto__ (and the edge to it)', withLinked({ id: '__proto__', type: 'tool.http', config: {} } as { id: string }), graphError(['INVALID_CONFIG', 'INVALID_CONFIG'], 'edges[to-__proto__].target')],
  ['a config that is an array', withLinked({ id: 'h', type: 'tool.http', config: ['GET'] } as { id: string }), graphError('INVALID_CONFIG', 'nodes[h].config')],
  ['a config with unknown keys', withLinked({ id: 'h', type: 'tool.http', config: { allowed_hosts: ['a.b'], exec: 'rm -rf /' } } as { id: string }), graphError('INVALID_CONFIG', 'nodes[h].config')],
  ['an allowed host with a path', withLinked({ id: 'h', type: 'tool.http', config: { allowed_hosts: ['evil.com/../x'] } } as { id: string }), graphError('INVALID_CONFIG', 'nodes[h].config.allowed_hosts.0')],
  ['an allowed host with a scheme', withLinked({ id: 'h', type: 'tool.http', config: { allowed_hosts: ['http://evil.com'] } } as { id: string }), graphError('INVALID_CONFIG', 'nodes[h].config.allowed_hosts.0')],
  ['a method that is not HTTP', withLinked({ id: 'h', type: 'tool.http', config: { methods: ['CONNECT'] } } as { id: string }), graphError('INVALID_CONFIG', 'nodes[h].config.methods.0')],
  ['a deeply nested config', withLinked({ id: 'h', type: 'tool.http', config: deep(200) } as { id: string }), graphError('INVALID_CONFIG', 'nodes[h].config')],
  ['a 1 MB instructions string', { ...good(), nodes: good().nodes.map((node) => (node.type === 'agent.core' ? { ...node, config: { instructions: 'x'.repeat(1_000_000) } } : node)) }, { status: 413 }],
  ['a position that is not finite', withLinked({ id: 'h', type: 'tool.http', config: {}, position: { x: 1e400, y: 0 } } as { id: string }), graphError('INVALID_CONFIG', 'nodes[h].position.x')],
  ['an edge into a trigger', withEdge({ id: 'x1', source: 'core', target: 'input' }), graphError('INVALID_EDGE', 'edges[x1]')],
  ['an edge from a capability', withEdge({ id: 'x2', source: 'bash', target: 'core' }), graphError('INVALID_EDGE', 'edges[x2]')],
  ['a self-loop', withEdge({ id: 'x3', source: 'core', target: 'core' }), graphError('INVALID_EDGE', 'edges[x3]')],
  ['an edge to nowhere', withEdge({ id: 'x4', source: 'core', target: 'nowhere' }), graphError('DANGLING_EDGE', 'edges[x4]')],
  ['an edge to __proto__', withEdge({ id: 'x7', source: 'core', target: '__proto__' }), graphError('INVALID_CONFIG', 'edges[x7].target')],
  ['an edge with extra keys', withEdge({ id: 'x5', source: 'core', target: 'bash', label: 'then run' }), graphError('INVALID_CONFIG', 'edges[x5]')],
  ['the same edge twice', withEdge({ id: 'x6', source: 'core', target: 'bash' }), graphError('DUPLICATE_EDGE', 'edges[core->bash]')],
  ['two cores', withNode({ id: 'core2', type: 'agent.core' }), graphError('MULTIPLE_AGENT_CORES', 'nodes')],
  ['the model removed', { ...good(), nodes: good().nodes.filter((node) => node.type !== 'model.llm'), edges: good().edges.filter((edge) => !edge.target.endsWith('_model')) }, graphError('NO_MODEL', 'nodes[core]')],
  ['5,001 nodes', { ...good(), nodes: Array.from({ length: 5_001 }, (_, index) => ({ id: `n${index}`, type: 'tool.mcp', config: { server: `s${index}` } })) }, graphError('INVALID_CONFIG', 'nodes')],
  ['start pointing at a tool', { ...good(), start: 'bash' }, graphError('INVALID_CONFIG', 'start')],
  ['a second bash', withLinked({ id: 'bash2', type: 'tool.bash' } as { id: string }), graphError('INVALID_CONFIG', 'nodes')],
  ['two MCP nodes for one server', { ...good(), nodes: [...good().nodes, { id: 'm1', type: 'tool.mcp', config: { server: 'gh' } }, { id: 'm2', type: 'tool.mcp', config: { server: 'gh' } }], edges: [...good().edges, { id: 'em1', source: 'core', target: 'm1' }, { id: 'em2', source: 'core', target: 'm2' }] }, graphError('INVALID_CONFIG', 'nodes[m1,m2]')],
];

/** What the cases are built on, each accepted as it is: a case is refused for what it changes, nothing else. */
const bases: [string, unknown][] = [
  ['the default graph', good()],
  ['a web tool joined to the core', withLinked({ id: 'h', type: 'tool.http', config: { allowed_hosts: ['a.example'], methods: ['GET'] } } as { id: string })],
  ['the default graph without bash', { ...good(), nodes: good().nodes.filter((node) => node.id !== 'bash'), edges: good().edges.filter((edge) => edge.target !== 'bash') }],
];

const put = (body: string) =>
  capabilitiesRoute.PUT(new Request('http://x/api', { method: 'PUT', body, headers: { 'content-type': 'application/json' } }), { params: Promise.resolve({ name: 'target' }) });

describe('hostile graphs change nothing', () => {
  it('the graphs the cases are built on are accepted, by the route and by the editor\'s validator', async () => {
    for (const [name, graph] of bases) {
      expect(validateGraph(graph).ok, name).toBe(true);
      expect((await put(JSON.stringify({ graph }))).status, name).toBe(200);
    }
  });

  it(`holds ${corpus.length} cases, each refused with its own reason; the stored graph is untouched`, async () => {
    const stored = good();
    stored.nodes = stored.nodes.filter((node) => node.id !== 'python');
    stored.edges = stored.edges.filter((edge) => edge.target !== 'python');
    expect((await put(JSON.stringify({ graph: stored }))).status).toBe(200);
    const db = await getDb();
    const before = await db.capabilityGraph.findMany();
    for (const [name, graph, refusal] of corpus) {
      const response = await put(JSON.stringify({ graph }));
      const body = (await response.json()) as { error: { code: string; message: string; details?: { code: string; path: string }[] } };
      if ('status' in refusal) {
        expect(response.status, name).toBe(refusal.status);
        expect(body.error.code, name).toBe('payload_too_large');
        continue;
      }
      expect([response.status, body.error?.code], name).toEqual([400, 'invalid_graph']);
      const details = body.error.details!;
      expect(details.map((detail) => detail.code).sort(), name).toEqual([...refusal.codes].sort());
      expect(details[0]!.path, name).toBe(refusal.at);
      for (const detail of details) expect(GRAPH_ERROR_CODES, name).toContain(detail.code);
      expect(body.error.message, name).toContain(`${refusal.codes[0]} at ${refusal.at}`);
      // The editor's import path: the same validator, the same refusal.
      const validated = validateGraph(graph);
      expect(validated.ok ? [] : validated.errors.map((error) => error.code).sort(), name).toEqual([...refusal.codes].sort());
    }
    expect(await db.capabilityGraph.findMany()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Not JSON at all, and a body past the size cap.
    const notJson = await put('{"graph":');
    expect([notJson.status, ((await notJson.json()) as { error: { code: string } }).error.code]).toEqual([400, 'invalid_json']);
    expect((await put(JSON.stringify({ graph: { ...good(), pad: 'x'.repeat(70 * 1024 * 1024) } }))).status).toBe(413);
  }, 60_000);
});
