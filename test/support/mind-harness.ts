// The mind's test harness (lib/session-mind/session-mind*.test.ts): a ScriptedBackend per layer, a
// simulated clock and the real SQLite store; each harness is stopped after its test.
import { afterEach } from 'vitest';
import { forgetShutdownPause } from '@/lib/orchestrator/shutdown-pause';
import type { LayerModelConfig, SessionParams } from '@/lib/config/model-config';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { EventRecorder } from '@/test/support/event-recorder';
import { FakeClock, settle } from '@/test/support/fake-clock';
import { ScriptedBackend, subconsciousReply, type Script } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

export const persona = '# Tester\nYou are a careful subconscious.\n';

export const layerConfig = (model: string): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 300, endpoint: 'http://127.0.0.1:9/v1' });

export interface Harness {
  orchestrator: Orchestrator;
  clock: FakeClock;
  events: EventRecorder;
  c: ScriptedBackend;
  s: ScriptedBackend;
}

/** Temp folders with the `tester` persona, and the harnesses of the file's tests stopped after each. */
export function useMindHarness() {
  useTempAppDirs({ personas: { tester: persona } });
  const running: Harness[] = [];
  afterEach(async () => {
    for (const harness of running.splice(0)) {
      harness.s.release();
      harness.c.release();
      await harness.orchestrator.stop();
      harness.events.close();
    }
    // Each test starts afresh over the file's one folder: the next test's start must not resume
    // the sessions this one's stop paused (a restart within a test still does).
    await forgetShutdownPause();
  });
  return {
    /** The harnesses to stop after the test: one built by hand is pushed here, one stopped by the test taken out. */
    running,
    harness(options: { c?: Script[]; cFallback?: Script; s?: Script[]; sFallback?: Script; clock?: FakeClock } = {}): Harness {
      const clock = options.clock ?? new FakeClock();
      const c = new ScriptedBackend(options.c ?? [], options.cFallback ?? { text: '<ID_loud>ok</ID_loud><ID_quiet>fine</ID_quiet>' });
      const s = new ScriptedBackend(options.s ?? [], options.sFallback ?? { text: subconsciousReply() });
      const orchestrator = new Orchestrator({ clock, random: () => 0.5, createBackend: (config) => (config.model === 'c-model' ? c : s) });
      const built = { orchestrator, clock, events: new EventRecorder(orchestrator.bus), c, s };
      running.push(built);
      return built;
    },
  };
}

export async function createSession(h: Harness, params: Partial<SessionParams> = {}) {
  await h.orchestrator.start();
  return h.orchestrator.createSession({ persona: 'tester', models: { c_model: layerConfig('c-model'), s_model: layerConfig('s-model') }, params });
}

/** Once the loop sleeps, how long until its next cycle (the simulated clock stands still meanwhile). */
export async function nextCycleDelay(h: Harness, sessionId: string): Promise<number> {
  for (let round = 0; round < 500; round++) {
    await settle(1);
    const state = h.orchestrator.mindState(sessionId);
    if (state && !state.cycleRunning && state.nextCycleAt) return Date.parse(state.nextCycleAt) - h.clock.now();
  }
  throw new Error('the loop never went to sleep');
}

export async function rows(sessionId: string) {
  const db = await getDb();
  return db.message.findMany({ where: { sessionId }, orderBy: { id: 'asc' } });
}
