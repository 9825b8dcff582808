// A stop, then a start (issue 73 §2): the sessions the shutdown paused run again by themselves; the
// one the user paused stays paused, through any number of restarts. The real orchestrator and store,
// scripted models.
import { afterEach, describe, expect, it } from 'vitest';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { findSession } from '@/lib/store/sessions-repository';
import { ScriptedBackend, subconsciousReply } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { Orchestrator } from './orchestrator';

useTempAppDirs({ personas: { iris: '# Iris\n' } });
const layer = (model: string): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 100, endpoint: 'http://127.0.0.1:9/v1' });
const running: Orchestrator[] = [];
afterEach(async () => {
  for (const orchestrator of running.splice(0)) await orchestrator.stop();
});

function orchestrator(): Orchestrator {
  const backend = new ScriptedBackend([], () => ({ text: subconsciousReply() }));
  const made = new Orchestrator({ createBackend: () => backend });
  running.push(made);
  return made;
}

const status = async (id: string) => (await findSession({ id }))?.status;

describe('a session paused by a shutdown', () => {
  it('runs again at the next start; the user’s own pause stays', async () => {
    const first = orchestrator();
    await first.start();
    const models = { c_model: layer('c'), s_model: layer('s') };
    const working = (await first.createSession({ persona: 'iris', models })).id;
    const resting = (await first.createSession({ persona: 'iris', models })).id;
    await first.pauseSession(resting);
    await first.stop();
    running.splice(0);
    expect([await status(working), await status(resting)]).toEqual(['paused', 'paused']);

    for (let restart = 0; restart < 2; restart++) {
      const next = orchestrator();
      await next.start();
      expect([await status(working), await status(resting)]).toEqual(['active', 'paused']);
      await next.stop();
      running.splice(0);
    }
    // Paused by the user after a restart: the next start leaves it paused too.
    const last = orchestrator();
    await last.start();
    await last.pauseSession(working);
    await last.stop();
    running.splice(0);
    const after = orchestrator();
    await after.start();
    expect([await status(working), await status(resting)]).toEqual(['paused', 'paused']);
  });
});
