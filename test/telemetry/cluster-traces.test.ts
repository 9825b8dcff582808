// One trace across processes (issue 65 §3), with two real processes on one PostgreSQL: this test's
// (the web side, holding nothing) and a `server.ts --worker`, both exporting to one loopback OTLP
// receiver. A message typed here for a session the worker holds is one trace: this process's
// `receive_message` is the parent of the worker's `invoke_agent`. A task whose worker is killed
// mid-task and which goes on here is one trace too: every step's span, from either process, is a
// child of the task's root, which this process records when the task ends.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cluster } from '@/lib/engine/cluster';
import { DbosEngine } from '@/lib/engine/dbos-engine';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { findTask } from '@/lib/store/tasks-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { startTracing, stopTracing, taskTraceparent } from '@/lib/telemetry/traces';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@/test/fakes/otlp-receiver';
import { useTaskCluster } from '@/test/support/task-cluster';
import { startWorker, type WorkerProcess } from '@/test/support/worker-process';

const { dirs, databaseUrl, layer } = useTaskCluster();
let receiver: OtlpReceiver;
let worker: WorkerProcess | null = null;
let here: Orchestrator | null = null;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await worker?.kill();
  await here?.stop();
  await stopTracing();
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME']) delete process.env[name];
  await receiver?.close();
});

const MAX_STEPS = 6;
const spans = (where: (span: ReceivedSpan) => boolean) => receiver.spans.filter(where);

describe('one trace across processes', () => {
  it('a message typed here and answered by the worker, and a task that moves here when the worker dies, are one trace each', async () => {
    worker = await startWorker({
      AGENTCSD_EXECUTOR_ID: 'worker-b',
      AGENTCSD_ENGINE: 'dbos',
      AGENTCSD_TASK_STEP_DELAY_MS: '400',
      AGENTCSD_DATA_DIR: dirs.dataDir,
      AGENTCSD_PERSONAS_DIR: dirs.personasDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'worker',
    });
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'web' });
    expect(await startTracing()).toBe(true);
    const engine = new DbosEngine({ systemDatabaseUrl: databaseUrl(), executorId: 'web-a', clustered: true });
    // Capacity 0: this process holds no session while the worker runs.
    here = new Orchestrator({ engine, cluster: new Cluster({ url: databaseUrl(), owner: 'web-a', capacity: 0 }), taskWorkingDelayMs: 400 });
    const session = await here.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    const owner = async () => (await (await getDb()).$queryRawUnsafe<{ owner: string }[]>('SELECT owner FROM session_leases WHERE session_id = $1', session.id))[0]?.owner;
    await vi.waitFor(async () => expect(await owner()).toBe('worker-b'), { timeout: 20_000 });
    await engine.launch();
    await here.start();

    // A message typed here: its turn runs in the worker, under this process's span.
    await here.sendUserMessage(session.id, { text: 'Hello over there' });
    await vi.waitFor(() => expect(spans((span) => span.name === 'invoke_agent tester' && span.attributes['agentcsd.layer'] === 'internal')).toHaveLength(1), { timeout: 20_000, interval: 100 });
    await vi.waitFor(() => expect(spans((span) => span.name === 'receive_message')).toHaveLength(1), { timeout: 10_000, interval: 100 });
    const [received] = spans((span) => span.name === 'receive_message');
    const [turn] = spans((span) => span.name === 'invoke_agent tester' && span.attributes['agentcsd.layer'] === 'internal');
    expect(received).toMatchObject({ service: 'web', attributes: { 'gen_ai.conversation.id': session.id } });
    expect(turn).toMatchObject({ service: 'worker', traceId: received!.traceId, parentSpanId: received!.spanId });
    // Its model call is the turn's child, in the worker.
    expect(spans((span) => span.name === 'chat fake-large' && span.parentSpanId === turn!.spanId)).not.toHaveLength(0);

    // A task submitted here runs there; the worker is killed once a step of it has been exported.
    const task = await here.tasks.submit(session.id, submitTaskSchema.parse({ goal: 'Keep looking [[forever]]', constraints: { max_steps: MAX_STEPS } }));
    const taskSteps = () => spans((span) => span.name === 'invoke_agent tester' && span.attributes['agentcsd.task_id'] === task.id && span.attributes['agentcsd.turn_id'] !== undefined);
    await vi.waitFor(() => expect(taskSteps().filter((span) => span.service === 'worker').length).toBeGreaterThanOrEqual(1), { timeout: 30_000, interval: 100 });
    await worker.kill();
    await vi.waitFor(async () => expect((await findTask(task.id))!.status).toBe('failed'), { timeout: 60_000, interval: 200 });
    const [, traceId, rootId] = taskTraceparent(task.id, task.traceId).split('-');
    expect(traceId).toBe(task.traceId.replace(/-/g, ''));
    // The root, recorded here when the task ended: from its making to its end, with what it came to.
    await vi.waitFor(() => expect(spans((span) => span.spanId === rootId)).toHaveLength(1), { timeout: 10_000, interval: 100 });
    const [root] = spans((span) => span.spanId === rootId);
    expect(root).toMatchObject({ name: 'invoke_agent tester', traceId, parentSpanId: '', service: 'web', attributes: { 'agentcsd.task.status': 'failed', 'agentcsd.task.steps': MAX_STEPS, 'gen_ai.agent.id': task.id } });
    expect(root!.status.code).toBe(2); // failed: max steps reached
    // Every step span of the task, from either process, is the root's child in the task's trace.
    await vi.waitFor(() => expect(taskSteps().filter((span) => span.service === 'web').length).toBeGreaterThanOrEqual(1), { timeout: 10_000, interval: 100 });
    const steps = taskSteps();
    expect(new Set(steps.map((span) => span.service))).toEqual(new Set(['worker', 'web']));
    expect(steps.every((span) => span.traceId === traceId && span.parentSpanId === rootId)).toBe(true);
    // The steps' own calls stay under them (one trace, wherever each step ran).
    const stepIds = new Set(steps.map((span) => span.spanId));
    expect(spans((span) => span.name.startsWith('chat ') && stepIds.has(span.parentSpanId)).every((span) => span.traceId === traceId)).toBe(true);
  }, 150_000);
});
