// Schedules, measured (issue 29), in one process with the real orchestrator and store:
//   precision — one-shot reminders set to whole seconds ahead; from each slot's time to the fake
//               model receiving the Internal Dialog's call that answers it (the scheduler's wake,
//               the claim, the stored message, the turn, the prompt). The fire path is the same on
//               either engine: the scheduler claims slots in the store, not through the engine.
//   scale     — 1,000 active schedules in one process: the timers it holds (one), the scheduler's
//               rounds per minute of waiting (one: its rescan), the process's CPU over the same
//               quiet stretch before and after (noisy on a shared machine), the heap before and after.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { createSchedule, createScheduleSchema } from '@/lib/triggers/schedule-service';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { formatMs, median, percentile } from './stats';

export interface TriggersResult {
  fireDelayMs: number[];
  schedules: number;
  timersBefore: number;
  timersAfter: number;
  cpuMsPerMinute: number;
  /** The same quiet stretch before the schedules were made. */
  baselineCpuMsPerMinute: number;
  /** The scheduler's rounds per minute of that quiet stretch. */
  roundsPerMinute: number;
  heapBeforeMb: number;
  heapAfterMb: number;
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
const heapMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

export async function benchTriggers(options: { reminders: number; schedules: number; idleMs: number }): Promise<TriggersResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-triggers-'));
  fs.chmodSync(dataDir, 0o755);
  process.env.AGENTCSD_DATA_DIR = dataDir;
  process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');
  process.env.AGENTCSD_MAX_SCHEDULES = String(options.schedules + options.reminders + 10);
  const arrivals = new Map<string, number>();
  const model = await startFakeOpenAIServer({
    script: (request) => {
      const slot = /⏰ Scheduled "bench (\d+)"/.exec(request.lastUserText)?.[1];
      if (slot && !request.system.includes('You are the Subconscious') && !arrivals.has(slot)) arrivals.set(slot, Date.now());
      return mindScript(request);
    },
  });
  const orchestrator = new Orchestrator();
  await orchestrator.start();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
  const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });

  // Precision: one reminder every 1.5 s or so, each at a whole second.
  const slots = new Map<string, number>();
  const first = Math.ceil(Date.now() / 1000) * 1000 + 3000;
  for (let index = 0; index < options.reminders; index++) {
    const at = first + Math.floor(index * 1.5) * 1000 + (index % 2) * 1000;
    slots.set(String(at), at);
    const expression = new Date(at).toISOString().slice(0, 19).replace('T', ' ');
    await createSchedule({ sessionId: session.id, body: createScheduleSchema.parse({ name: `bench ${at}`, kind: 'once', expression, time_zone: 'UTC', action: { kind: 'message', text: 'tick' } }), createdBy: 'user', now: new Date() });
  }
  const last = Math.max(...slots.values());
  while (arrivals.size < slots.size && Date.now() < last + 15_000) await new Promise((resolve) => setTimeout(resolve, 50));
  const fireDelayMs = [...slots].filter(([key]) => arrivals.has(key)).map(([key, at]) => arrivals.get(key)! - at);

  // Scale: a thousand schedules far in the future, then a quiet stretch.
  await orchestrator.pauseSession(session.id);
  // The median of three windows: a window that catches one of V8's collections after a burst of
  // work (the memory reducer runs them for a minute or more after allocation stops) is not the
  // steady state (issue 43 §4: the profile of the earlier single window was that collection).
  const window = async () => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, options.idleMs));
    const used = process.cpuUsage(cpu);
    return ((used.user + used.system) / 1000) * (60_000 / (performance.now() - started));
  };
  const cpuPerMinute = async () => median([await window(), await window(), await window()]);
  const baselineCpuMsPerMinute = await cpuPerMinute();
  const timersBefore = timers();
  const heapBeforeMb = heapMb();
  for (let index = 0; index < options.schedules; index++) {
    await createSchedule({ sessionId: session.id, body: createScheduleSchema.parse({ name: `far ${index}`, kind: 'cron', expression: `${index % 60} ${index % 24} 1 1 *`, time_zone: 'UTC', action: { kind: 'message', text: 'far' } }), createdBy: 'user', now: new Date() });
  }
  // Let what making them left behind settle (the inserts' garbage, SQLite's checkpoint) before timing the quiet.
  await new Promise((resolve) => setTimeout(resolve, 60_000));
  const heapAfterMb = heapMb();
  const timersAfter = timers();
  const roundsBefore = orchestrator.scheduler.rounds;
  const quietFrom = performance.now();
  const cpuMsPerMinute = await cpuPerMinute();
  const roundsPerMinute = ((orchestrator.scheduler.rounds - roundsBefore) * 60_000) / (performance.now() - quietFrom);

  await orchestrator.stop();
  await model.close();
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { fireDelayMs, schedules: options.schedules, timersBefore, timersAfter, cpuMsPerMinute, baselineCpuMsPerMinute, roundsPerMinute, heapBeforeMb, heapAfterMb };
}

export function triggersTable(result: TriggersResult): string {
  const delays = result.fireDelayMs;
  return [
    '| measure | value |',
    '| --- | --- |',
    `| slot → model call, median / p99 (${delays.length} reminders) | ${formatMs(median(delays))} / ${formatMs(percentile(delays, 99))} ms |`,
    `| timers held, before → after ${result.schedules} active schedules | ${result.timersBefore} → ${result.timersAfter} |`,
    `| scheduler rounds per minute with ${result.schedules} schedules waiting | ${result.roundsPerMinute.toFixed(1)} |`,
    `| process CPU per minute, the whole app idle (session paused; median of 3 windows, the second set a minute after making them): no schedules → ${result.schedules} waiting | ${result.baselineCpuMsPerMinute.toFixed(1)} → ${result.cpuMsPerMinute.toFixed(1)} ms |`,
    `| heap before → after making them | ${result.heapBeforeMb.toFixed(1)} → ${result.heapAfterMb.toFixed(1)} MB |`,
  ].join('\n');
}
