// Issue 43 §4: what a production server holds while it sits idle — with no session, then with 20
// active sessions whose minds have gone quiet (adaptive pacing, the fake model answering at once).
// Resident memory is sampled once a second for 15 s and the median quoted (one sample lands before
// or after a collection by chance). Side by side in one run, each in its own folders: the server as
// `npm start` runs it (compiled, dist/server.mjs), the same with the 64 MB semi-spaces it used to
// start with, and as it ran before (that flag and `--import tsx server.ts`: TypeScript compiled at
// every start). The code is today's in all three: the libraries loaded on first use are not
// loaded in any of them.
import { execSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { buildServer, COMPILED_SERVER } from '@/scripts/build-server';
import { median } from './stats';
import { serverFolders } from '../e2e/support/spawn-server';

export interface IdleMemoryResult {
  variant: string;
  noSessionMiB: number;
  /** The first session loads what any session needs (the model SDK, the tool catalog): a one-off. */
  oneSessionMiB: number;
  sessions: number;
  withSessionsMiB: number;
  /** Another N on top: the young generation has grown to its cap by then, so this is what a session holds. */
  withTwiceMiB: number;
  perSessionMiB: number;
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function sampledRss(pid: number, seconds: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < seconds; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    samples.push(rssMiB(pid));
  }
  return median(samples);
}

async function measure(variant: string, args: string[], port: number, fakeUrl: string, sessions: number): Promise<IdleMemoryResult> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-idle-'));
  const { dataDir, personasDir } = serverFolders(root);
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', AGENTCSD_DATA_DIR: dataDir, AGENTCSD_PERSONAS_DIR: personasDir, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  try {
    const deadline = Date.now() + 120_000;
    while (!output.includes('> AgentCSD ready on')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server not ready:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const base = `http://127.0.0.1:${port}`;
    // The home page once (what a user opens first), then quiet.
    await fetch(`${base}/`).then((response) => response.text());
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const noSessionMiB = await sampledRss(child.pid!, 15);
    const layer = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 256, endpoint: `${fakeUrl}/v1` });
    const create = async (count: number, from: number) => {
      for (let i = from; i < from + count; i++) {
        const response = await fetch(`${base}/api/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
          body: JSON.stringify({ persona: 'iris', name: `Idle ${i + 1}`, models: { c_model: layer('fake-large'), s_model: layer('fake-small') } }),
        });
        if (!response.ok) throw new Error(`session ${i + 1}: ${response.status} ${await response.text()}`);
      }
      // The minds' first cycles, then a minute for their adaptive pacing to back off (idle, as a day's sessions mostly are).
      await new Promise((resolve) => setTimeout(resolve, 60_000));
      return sampledRss(child.pid!, 15);
    };
    const oneSessionMiB = await create(1, 0);
    const withSessionsMiB = await create(sessions, 1);
    const withTwiceMiB = await create(sessions, 1 + sessions);
    return { variant, noSessionMiB, oneSessionMiB, sessions, withSessionsMiB, withTwiceMiB, perSessionMiB: (withTwiceMiB - withSessionsMiB) / sessions };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function benchIdleMemory(options: { sessions: number; port: number }): Promise<IdleMemoryResult[]> {
  if (!fs.existsSync('.next/BUILD_ID')) execSync('npx next build', { stdio: 'ignore', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  await buildServer();
  const fake = await startFakeOpenAIServer({});
  try {
    return [
      await measure('`npm start` now: compiled, V8\'s default young generation', ['--enable-source-maps', COMPILED_SERVER], options.port, fake.url, options.sessions),
      await measure('compiled, `--max-semi-space-size=64`', ['--max-semi-space-size=64', '--enable-source-maps', COMPILED_SERVER], options.port + 1, fake.url, options.sessions),
      await measure('as `npm start` ran before: `--max-semi-space-size=64 --import tsx server.ts`', ['--max-semi-space-size=64', '--import', 'tsx', 'server.ts'], options.port + 2, fake.url, options.sessions),
    ];
  } finally {
    await fake.close();
  }
}

export function idleMemoryTable(results: IdleMemoryResult[]): string {
  return [
    '| server | idle, no session (RSS MiB, median of 15 s) | one idle session | 1 + N | 1 + 2N | added per session, 1 + N → 1 + 2N |',
    '| --- | --- | --- | --- | --- | --- |',
    ...results.map((result) => `| ${result.variant} | ${result.noSessionMiB.toFixed(0)} | ${result.oneSessionMiB.toFixed(0)} | ${result.withSessionsMiB.toFixed(0)} (N = ${result.sessions}) | ${result.withTwiceMiB.toFixed(0)} | ${result.perSessionMiB.toFixed(2)} MiB |`),
  ].join('\n');
}

if (process.argv[1]?.endsWith('idle-memory.ts')) {
  // `-- <node flags…>`: one variant with these flags (for trying a flag).
  const flags = process.argv.indexOf('--');
  if (flags > 0) {
    await buildServer();
    const fake = await startFakeOpenAIServer({});
    console.log(idleMemoryTable([await measure(process.argv.slice(flags + 1).join(' '), [...process.argv.slice(flags + 1), COMPILED_SERVER], 3349, fake.url, 20)]));
    await fake.close();
  } else console.log(idleMemoryTable(await benchIdleMemory({ sessions: 20, port: 3347 })));
}
