// Prompt caching with the Anthropic backend: the real mind and the real adapter against the fake
// Messages API, whose cache follows the documented rules (breakpoint prefixes, 5-minute lifetime
// refreshed by reads, 4,096-token minimum for Haiku 4.5 and 1,024 for Sonnet). A simulated clock
// runs a session through a conversation (a message every 90 s for 45 minutes) and then 45 idle
// minutes with adaptive pacing; each call's usage is what the fake reports. The steady state is
// everything after the first 10 minutes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultModelIds } from '../lib/config/model-catalog';
import type { LayerModelConfig } from '../lib/config/model-config';
import { estimateCost } from '../lib/backends/pricing';
import { Orchestrator } from '../lib/orchestrator/orchestrator';
import { closeDb } from '../lib/store/db';
import { acceptUpload } from '../lib/http/uploads';
import { startFakeAnthropicServer } from '../test/fakes/fake-anthropic-server';
import type { FakeRequest } from '../test/fakes/fake-server-core';
import { FakeClock } from '../test/support/fake-clock';
import { useScratchDirs } from './mind';

export interface CacheRun {
  label: string;
  byLayer: Record<string, { calls: number; input: number; cacheRead: number; cacheWrite: number; output: number; model: string }>;
}

/** Descriptions of the length real skills have (one or two sentences). */
const skillDescriptions = [
  'Summarise a long file that does not fit in one read: outline first, then read it in parts and keep notes.',
  'Write a clear bug report from an error or a conversation: exact steps, expected against actual, evidence.',
  'Plan a task before acting: the goal and what done looks like, unknowns, small checkable steps.',
  'Turn a messy spreadsheet export into a clean table with typed columns and a note of what changed.',
];

const words = ['the sea', 'their silence', 'a promise', 'the question about work', 'an old song', 'the weather', 'a small joke', 'the long pause'];

/** Outputs of realistic size: private thoughts of ~100 tokens, a short note every other cycle. */
function script(request: FakeRequest) {
  if (request.system.includes('You are the Subconscious')) {
    const cycle = (request.lastUserText.match(/\n---\n/g)?.length ?? 0) + 2;
    const topic = words[cycle % words.length]!;
    return {
      text:
        `<S_loud>${cycle % 2 ? `Ask about ${topic}.` : ''}</S_loud>` +
        `<S_quiet>Cycle ${cycle}. I keep returning to ${topic}. ${'They seem to circle it without landing; I should let the Internal Dialog take it slowly, notice what is not said, and remember what mattered earlier in the conversation. '.repeat(2)}</S_quiet>` +
        `<M_AND_C><mood>attentive</mood><criteria>Be brief about ${topic}; one question at most.</criteria></M_AND_C><trigger>false</trigger>`,
    };
  }
  if (request.system.includes('long-term memory')) return { text: `Summary: they talked about ${words.join(', ')}; I stayed attentive. `.repeat(4) };
  return { text: `<ID_loud>That makes sense. Tell me more about it?</ID_loud><ID_quiet>${'They are opening up; keep it light. '.repeat(4)}</ID_quiet>` };
}

export async function benchPromptCache(input: {
  label: string;
  sModel: LayerModelConfig['model'];
  sContextWindow?: number;
  minutes: { talk: number; idle: number };
  /** Every `every`th message carries this photo (issue 33: a conversation with images). */
  photos?: { bytes: Buffer; every: number };
  /** Calls before this are not counted (default 10: the steady state). */
  countFromMinute?: number;
  /** This many skills installed (issue 34): their list joins the Internal Dialog's cached prompt. */
  skills?: number;
}): Promise<CacheRun> {
  const cleanup = useScratchDirs();
  const skillsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-skills-'));
  for (let index = 0; index < (input.skills ?? 0); index++) {
    const name = `skill-${index}`;
    fs.mkdirSync(path.join(skillsDir, name));
    fs.writeFileSync(path.join(skillsDir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${skillDescriptions[index % skillDescriptions.length]}\n---\nSteps.\n`);
  }
  const previousSkillsDir = process.env.AGENTCSD_SKILLS_DIR;
  process.env.AGENTCSD_SKILLS_DIR = skillsDir;
  const clock = new FakeClock();
  const fake = await startFakeAnthropicServer({ script, now: () => clock.now(), requestLogLimit: 1 });
  const layer = (model: string, extra: Partial<LayerModelConfig> = {}): LayerModelConfig => ({ backend: 'anthropic', model, max_tokens: 1024, endpoint: fake.url, api_key: 'bench', ...extra });
  const orchestrator = new Orchestrator({ clock });
  const run: CacheRun = { label: input.label, byLayer: {} };
  const started = clock.now();
  const steadyFrom = started + (input.countFromMinute ?? 10) * 60_000;
  orchestrator.bus.subscribe((event) => {
    if (event.type !== 'usage' || clock.now() < steadyFrom) return;
    const totals = (run.byLayer[event.layer] ??= { calls: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0, model: '' });
    // The model each call ran on, as the call itself says (consolidation's is memory settings', not a layer's).
    if (!totals.model.split(', ').includes(event.call.model)) totals.model = totals.model ? `${totals.model}, ${event.call.model}` : event.call.model;
    totals.calls++;
    totals.input += event.call.inputTokens;
    totals.cacheRead += event.call.cacheReadTokens;
    totals.cacheWrite += event.call.cacheWriteTokens;
    totals.output += event.call.outputTokens;
  });
  try {
    await orchestrator.start();
    const models = {
      c_model: layer(defaultModelIds.anthropic!.c_model),
      s_model: layer(input.sModel, input.sContextWindow ? { context_window: input.sContextWindow } : {}),
    };
    const session = await orchestrator.createSession({ persona: 'bench', models, params: { pacing: 'adaptive' } });
    // The real calls take real milliseconds while simulated time stands still: after each step,
    // wait until the mind is asleep again before time moves on.
    const asleep = async () => {
      for (;;) {
        const state = orchestrator.mindState(session.id);
        if (state && !state.cycleRunning && !state.turn && state.queued === 0 && clock.nextWakeAt() !== null) return;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    };
    const end = started + (input.minutes.talk + input.minutes.idle) * 60_000;
    let nextMessageAt = started + 30_000;
    let said = 0;
    while (clock.now() < end) {
      if (clock.now() >= nextMessageAt && clock.now() < started + input.minutes.talk * 60_000) {
        said++;
        const photo = input.photos && said % input.photos.every === 0 ? await acceptUpload({ sessionId: session.id, name: `photo-${said}.jpg`, claimedType: 'image/jpeg', bytes: input.photos.bytes }) : null;
        await orchestrator.sendUserMessage(session.id, {
          text: `Message ${said}: ${words[said % words.length]} has been on my mind lately.`,
          ...(photo && { attachments: [{ kind: 'file' as const, id: photo.id }] }),
        });
        nextMessageAt += 90_000;
      }
      await asleep();
      await clock.advance(1_000);
    }
    await asleep();
  } finally {
    const stopping = orchestrator.stop();
    await clock.advance(5_000);
    await stopping;
    await closeDb();
    await fake.close();
    cleanup();
    if (previousSkillsDir === undefined) delete process.env.AGENTCSD_SKILLS_DIR;
    else process.env.AGENTCSD_SKILLS_DIR = previousSkillsDir;
    fs.rmSync(skillsDir, { recursive: true, force: true });
  }
  return run;
}

const share = (layer: { input: number; cacheRead: number; cacheWrite: number }) => layer.cacheRead / Math.max(1, layer.input + layer.cacheRead + layer.cacheWrite);

type Dollars = number | 'unknown';

/** Dollars for a layer's tokens as billed (the app's own estimate) and as if nothing were cached; 'unknown' for a model without a price. */
function dollars(layer: CacheRun['byLayer'][string]): { billed: Dollars; uncached: Dollars } {
  // Several models on one layer (a settings change mid-run): no single price applies.
  if (!layer.model || layer.model.includes(', ')) return { billed: 'unknown', uncached: 'unknown' };
  const billed = estimateCost(layer.model, { inputTokens: layer.input, cacheReadTokens: layer.cacheRead, cacheWriteTokens: layer.cacheWrite, outputTokens: layer.output });
  const uncached = estimateCost(layer.model, { inputTokens: layer.input + layer.cacheRead + layer.cacheWrite, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: layer.output });
  return { billed, uncached };
}

const shown = (value: Dollars) => (value === 'unknown' ? 'unknown' : `$${value.toFixed(3)}`);

/** A total over layers: the priced sum, and what could not be priced said in words. */
function totalShown(values: Dollars[]): string {
  const priced = values.filter((value): value is number => value !== 'unknown');
  const unpriced = values.length - priced.length;
  const sum = `$${priced.reduce((total, value) => total + value, 0).toFixed(3)}`;
  return unpriced === 0 ? sum : `${sum} + ${unpriced} layer(s) unknown`;
}

export function cacheTable(runs: CacheRun[]): string {
  const lines = [
    '| run | layer (model) | calls | input tokens sent | read from cache | written to cache | cache-read share | cost as billed | cost without caching |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const run of runs) {
    const layers = Object.entries(run.byLayer).filter(([, layer]) => layer.calls > 0);
    const all = { calls: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
    const billed: Dollars[] = [];
    const uncached: Dollars[] = [];
    for (const [name, layer] of layers) {
      const cost = dollars(layer);
      billed.push(cost.billed);
      uncached.push(cost.uncached);
      for (const key of ['calls', 'input', 'cacheRead', 'cacheWrite', 'output'] as const) all[key] += layer[key];
      const total = layer.input + layer.cacheRead + layer.cacheWrite;
      lines.push(
        `| ${run.label} | ${name} (${layer.model || 'model not reported'}) | ${layer.calls} | ${total.toLocaleString('en')} | ${layer.cacheRead.toLocaleString('en')} | ${layer.cacheWrite.toLocaleString('en')} | ${(share(layer) * 100).toFixed(1)}% | ${shown(cost.billed)} | ${shown(cost.uncached)} |`,
      );
    }
    const total = all.input + all.cacheRead + all.cacheWrite;
    lines.push(
      `| ${run.label} | **all** | ${all.calls} | ${total.toLocaleString('en')} | ${all.cacheRead.toLocaleString('en')} | ${all.cacheWrite.toLocaleString('en')} | **${(share(all) * 100).toFixed(1)}%** | ${totalShown(billed)} | ${totalShown(uncached)} |`,
    );
  }
  return lines.join('\n');
}
