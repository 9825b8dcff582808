// Specialists, measured (issue 34): what a delegation round trip adds over the specialist's own
// model time. Seed 001's crew on the fake OpenAI-compatible server (each reply after a fixed
// time to first token): the lead notes, plans and delegates a review; the reviewer answers in one
// model call. Round trip: the `delegate` call's start to its end (the child's session and task made,
// its step run, its result back through the bus). Model time: the durations of the reviewer's
// Internal Dialog calls (its trace). The difference is what delegation costs on top of the model.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installCrew, CREW_FIRST_TASK, CREW_LEAD } from '@/lib/crew/crew';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { listLlmCallsByTrace } from '@/lib/store/mind-repository';
import { childTasks } from '@/lib/store/tasks-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { submitTaskSchema } from '@/lib/store/task-types';
import { crewScript } from '@/test/fakes/crew-script';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { firstEvent } from './first-event';
import { formatMs, median } from './stats';

export interface DelegationResult {
  firstTokenMs: number;
  roundTrip: number[];
  childModel: number[];
  childCalls: number[];
}

export async function benchDelegation(options: { runs: number; firstTokenMs: number; port?: number }): Promise<DelegationResult> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-delegation-'));
  fs.chmodSync(root, 0o755);
  const previous = { data: process.env.AGENTCSD_DATA_DIR, personas: process.env.AGENTCSD_PERSONAS_DIR, skills: process.env.AGENTCSD_SKILLS_DIR };
  process.env.AGENTCSD_DATA_DIR = path.join(root, 'data');
  process.env.AGENTCSD_PERSONAS_DIR = path.join(root, 'personas');
  process.env.AGENTCSD_SKILLS_DIR = path.resolve('skills');
  const fake = await startFakeOpenAIServer({ script: crewScript, port: options.port, firstDeltaDelayMs: options.firstTokenMs });
  const orchestrator = new Orchestrator({ taskWorkingDelayMs: 0 });
  await orchestrator.start();
  await installCrew();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${fake.url}/v1` };
  const result: DelegationResult = { firstTokenMs: options.firstTokenMs, roundTrip: [], childModel: [], childCalls: [] };
  for (let run = 0; run <= options.runs; run++) {
    const session = await orchestrator.createSession({ persona: CREW_LEAD, models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });
    const task = await orchestrator.tasks.submit(session.id, submitTaskSchema.parse(CREW_FIRST_TASK));
    const ended = await firstEvent(orchestrator.bus, (event) => ((event.type === 'task.completed' || event.type === 'task.failed') && event.task.id === task.id ? event.task : undefined));
    if (ended.status !== 'completed') throw new Error(`the crew's task ${ended.status}: ${ended.error}`);
    const call = (await listToolCalls({ sessionId: session.id })).find((row) => row.name === 'delegate')!;
    const child = (await childTasks(task.id))[0]!;
    const calls = (await listLlmCallsByTrace(child.traceId)).filter((row) => row.layer === 'internal');
    if (run > 0) {
      // Run 0 warms up (modules, statements, the crew's first session).
      result.roundTrip.push(call.finishedAt!.getTime() - call.startedAt!.getTime());
      result.childModel.push(calls.reduce((sum, row) => sum + (row.durationMs ?? 0), 0));
      result.childCalls.push(calls.length);
    }
    await orchestrator.deleteSession(child.sessionId);
    await orchestrator.deleteSession(session.id);
  }
  await orchestrator.stop();
  await fake.close();
  await closeDb();
  for (const [key, value] of [['AGENTCSD_DATA_DIR', previous.data], ['AGENTCSD_PERSONAS_DIR', previous.personas], ['AGENTCSD_SKILLS_DIR', previous.skills]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  fs.rmSync(root, { recursive: true, force: true });
  return result;
}

export function delegationTable(result: DelegationResult): string {
  const added = result.roundTrip.map((total, index) => total - result.childModel[index]!);
  return [
    `Seed 001's crew on the fake OpenAI-compatible server (${result.firstTokenMs} ms to each reply's first token), ${result.roundTrip.length} delegations after a warm-up; the reviewer answers in ${median(result.childCalls)} model call.`,
    '',
    '| | median ms |',
    '|---|---|',
    `| round trip: the lead's \`delegate\` call, start to result | ${formatMs(median(result.roundTrip))} |`,
    `| the reviewer's own model time (its Internal Dialog calls) | ${formatMs(median(result.childModel))} |`,
    `| added by delegation (session, task, brief, bus, park), per round trip | ${formatMs(median(added))} |`,
  ].join('\n');
}
