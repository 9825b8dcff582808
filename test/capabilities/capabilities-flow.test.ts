// Capabilities as a user meets them, through the routes, the real orchestrator and store: the
// default graph until one is saved; a broken graph refused with every error; a session created
// after a tool was disconnected cannot use it — the model asking for it gets CAPABILITY_NOT_AVAILABLE
// before anything runs — and cannot get it back through its settings; secrets stay write-only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as capabilitiesRoute from '@/app/api/personas/[name]/capabilities/route';
import * as validateRoute from '@/app/api/capabilities/validate/route';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import { readSessionGraph } from '@/lib/capabilities/graph-store';
import type { AgentGraph } from '@/lib/capabilities/validate';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { EventRecorder } from '@/test/support/event-recorder';
import { ScriptedBackend, subconsciousReply } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { iris: '# Iris\n' } });

const layer = (model: string): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 300, endpoint: 'http://127.0.0.1:9/v1' });
const context = (name: string) => ({ params: Promise.resolve({ name }) });
const put = (graph: unknown, name = 'iris') =>
  capabilitiesRoute.PUT(new Request('http://x/api', { method: 'PUT', body: JSON.stringify({ graph }), headers: { 'content-type': 'application/json' } }), context(name));

let orchestrator: Orchestrator;
let events: EventRecorder;
let c: ScriptedBackend;
beforeAll(async () => {
  // The Internal Dialog asks for bash on its first step, then answers.
  c = new ScriptedBackend(
    [{ text: '<ID_quiet>I will look.</ID_quiet>', toolCalls: [{ id: 'call_1', name: 'bash', input: { command: 'echo hi > /tmp/should-not-exist' } }] }],
    { text: '<ID_loud>Done.</ID_loud><ID_quiet>ok</ID_quiet>' },
  );
  const s = new ScriptedBackend([], { text: subconsciousReply() });
  orchestrator = new Orchestrator({ createBackend: (config) => (config.model === 'c' ? c : s) });
  events = new EventRecorder(orchestrator.bus);
  await orchestrator.start();
});
afterAll(async () => {
  await orchestrator.stop();
  events.close();
});

describe('capabilities', () => {
  it('a persona without a graph shows the default one; a broken graph is refused with every error and changes nothing', async () => {
    const shown = (await (await capabilitiesRoute.GET(new Request('http://x/api'), context('iris'))).json()) as { stored: boolean; graph: AgentGraph };
    expect(shown.stored).toBe(false);
    expect(shown.graph).toEqual(defaultGraph('iris', []));

    const broken = defaultGraph('iris');
    broken.nodes.push({ id: 'stray', type: 'tool.bash', config: {} }, { id: 'core2', type: 'agent.core', config: {} });
    broken.edges.push({ id: 'bad', source: 'bash', target: 'files' });
    const refused = await put(broken);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: string; message: string; details: { code: string; path: string }[] } };
    expect(body.error.code).toBe('invalid_graph');
    // Two cores: which one a stray capability belongs to cannot be said, so that is not reported.
    expect(body.error.details.map((error) => `${error.code} ${error.path}`)).toEqual(['INVALID_EDGE edges[bad]', 'INVALID_CONFIG nodes', 'MULTIPLE_AGENT_CORES nodes']);
    const db = await getDb();
    expect(await db.capabilityGraph.count()).toBe(0);

    const validated = (await (await validateRoute.POST(new Request('http://x/api', { method: 'POST', body: JSON.stringify({ graph: broken }), headers: { 'content-type': 'application/json' } }), undefined)).json()) as { ok: boolean; errors: unknown[] };
    expect(validated.ok).toBe(false);
    expect(validated.errors).toHaveLength(3);
    expect((await put(defaultGraph('iris'), 'nobody-here')).status).toBe(404);
    expect((await put(defaultGraph('iris'), '../etc')).status).toBe(400);
  });

  it('a session created after bash was disconnected cannot use it: CAPABILITY_NOT_AVAILABLE before anything runs, its settings cannot bring it back; the core\'s instructions reach the prompt', async () => {
    const graph = defaultGraph('iris');
    graph.nodes = graph.nodes.filter((node) => node.id !== 'bash').map((node) => (node.type === 'agent.core' ? { ...node, config: { strategy: 'reactive', instructions: 'Answer in French.' } } : node));
    graph.edges = graph.edges.filter((edge) => edge.target !== 'bash');
    expect((await put(graph)).status).toBe(200);

    const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer('c'), s_model: layer('s') } });
    expect(session.params.tools).not.toContain('bash');
    expect(session.params.tools).toContain('python');
    expect((await readSessionGraph(session.id))?.graph.nodes.map((node) => node.id)).not.toContain('bash');
    await orchestrator.sendUserMessage(session.id, { text: 'Run something' });
    await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id });
    const db = await getDb();
    const calls = await db.toolCall.findMany({ where: { sessionId: session.id } });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'bash', status: 'failed' });
    expect(calls[0]!.result).toMatch(/^CAPABILITY_NOT_AVAILABLE/);
    expect(calls[0]!.startedAt).toBeNull();
    // agent.core's instructions are part of the Internal Dialog's cached system prompt.
    expect(c.calls[0]!.system[0]).toMatchObject({ cache: true, text: expect.stringMatching(/## This agent's instructions\nAnswer in French\.$/) });

    const updated = await orchestrator.updateSession(session.id, { params: { ...session.params, tools: ['bash', 'read_file'] } });
    expect(updated.params.tools).toEqual(['read_file']);
  }, 20_000);

  it('a connection string is write-only: masked when read, kept when the mask comes back', async () => {
    const graph = defaultGraph('iris');
    graph.nodes.push({ id: 'pg', type: 'tool.postgres', config: { connection: 'postgres://agent:hunter2@127.0.0.1:5432/app' } });
    graph.edges.push({ id: 'e_pg', source: 'core', target: 'pg' });
    const saved = await put(graph);
    const text = await saved.text();
    expect(saved.status).toBe(200);
    expect(text).not.toContain('hunter2');
    const shown = (await (await capabilitiesRoute.GET(new Request('http://x/api'), context('iris'))).json()) as { graph: AgentGraph };
    expect(JSON.stringify(shown)).not.toContain('hunter2');
    expect((await put(shown.graph)).status).toBe(200); // the mask sent back
    const db = await getDb();
    expect((await db.capabilityGraph.findUnique({ where: { personaName: 'iris' } }))!.graph).toContain('hunter2');
  });
});
