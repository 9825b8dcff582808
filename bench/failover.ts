// `npm run bench:failover` (issue 78 §2): what a failover adds to a reply's first token, beyond the
// failing call's own time. Three sessions on one orchestrator, the same fake model behind each
// answer, messages interleaved: one whose Internal Dialog asks the fake directly; one whose first
// model is a closed port (a local server that is down), the fake its fallback; one whose first model
// answers 503 on every try (its retries spent), the fake its fallback. Per message: send → first
// reply token; the failing attempt's own duration is its row in the calls. Each failing session is
// reset after every message (its cool-down would skip the failing model). The budget: 1 s.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { LayerModelConfig } from '../lib/config/model-config';
import { Orchestrator } from '../lib/orchestrator/orchestrator';
import { getDb } from '../lib/store/db';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server';
import { mindScript } from '../test/fakes/mind-script';
import { formatMs, median } from './stats';

const samples = Number(process.argv[2] ?? 20);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-failover-'));
fs.chmodSync(dataDir, 0o755);
process.env.AGENTCSD_DATA_DIR = dataDir;
process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');

const answering = await startFakeOpenAIServer({ script: mindScript, chunkDelayMs: 5, firstDeltaDelayMs: 50 });
const failing = await startFakeOpenAIServer({ script: mindScript });
const probe = net.createServer();
await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
const closedPort = (probe.address() as net.AddressInfo).port;
await new Promise<void>((resolve) => probe.close(() => resolve()));

// The default retry policy, as the app runs: a 503 is retried before it is handed on.
const orchestrator = new Orchestrator({ fallbackCoolDownMs: 1 });
await orchestrator.start();
const layer = (endpoint: string, model = 'fake-large'): LayerModelConfig => ({ backend: 'openai_compatible', model, max_tokens: 256, endpoint });
const fallback = layer(`${answering.url}/v1`);
const sessions = {
  direct: fallback,
  'closed port': { ...layer(`http://127.0.0.1:${closedPort}/v1`, 'down'), fallbacks: [fallback] },
  '503 on every try': { ...layer(`${failing.url}/v1`, 'overloaded'), fallbacks: [fallback] },
};
type Path = keyof typeof sessions;
const ids = {} as Record<Path, string>;
for (const [name, cModel] of Object.entries(sessions) as [Path, LayerModelConfig][]) {
  ids[name] = (await orchestrator.createSession({ persona: 'iris', name, models: { c_model: cModel, s_model: layer(`${answering.url}/v1`, 'fake-small') }, params: { pacing: 'adaptive' } })).id;
}

const firstToken: Record<Path, number[]> = { direct: [], 'closed port': [], '503 on every try': [] };
const failedOwn: Record<Path, number[]> = { direct: [], 'closed port': [], '503 on every try': [] };
for (let round = 0; round < samples + 2; round++) {
  for (const name of Object.keys(sessions) as Path[]) {
    if (name === '503 on every try') failing.failNext({ kind: 'status', status: 503, errorType: 'server_error' }, 10);
    const sessionId = ids[name];
    const started = performance.now();
    const first = new Promise<number>((resolve) => {
      const stop = orchestrator.bus.subscribe((event) => {
        if (event.sessionId === sessionId && event.type === 'reply-delta') {
          stop();
          resolve(performance.now());
        }
      });
    });
    const ended = new Promise<void>((resolve) => {
      const stop = orchestrator.bus.subscribe((event) => event.sessionId === sessionId && event.type === 'turn-end' && (stop(), resolve()));
    });
    await orchestrator.sendUserMessage(sessionId, { text: `round ${round} through ${name}` });
    const at = await first;
    await ended;
    while (failing.takeFault()) {} // what this round did not use
    if (round < 2) continue; // warm-up
    firstToken[name].push(at - started);
    if (name !== 'direct') {
      const rows = await (await getDb()).llmCall.findMany({ where: { sessionId, layer: 'internal', error: { not: null } }, orderBy: { id: 'desc' }, take: 1 });
      failedOwn[name].push(rows[0]?.durationMs ?? Number.NaN);
    }
    await new Promise((resolve) => setTimeout(resolve, 5)); // past the 1 ms cool-down: the failing model is asked first again
  }
}

const direct = median(firstToken.direct);
console.log(`## Fallback models: what a failover adds to the first token (${samples} each, interleaved)\n`);
console.log('| path | first token (median) | the failing call itself (median) | added beyond it |');
console.log('|---|---:|---:|---:|');
console.log(`| the fallback asked directly | ${formatMs(direct)} ms | — | — |`);
for (const name of ['closed port', '503 on every try'] as const) {
  const own = median(failedOwn[name]);
  console.log(`| first model: ${name} → the fallback | ${formatMs(median(firstToken[name]))} ms | ${formatMs(own)} ms | **${formatMs(median(firstToken[name]) - own - direct)} ms** |`);
}
console.log(`\nThe issue's budget: ≤ 1,000 ms beyond the failing call's own. Default retry policy (the 503 is retried before it is handed on).`);
await orchestrator.stop();
await Promise.all([answering.close(), failing.close()]);
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
