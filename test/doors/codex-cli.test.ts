// The real Codex CLI (`@openai/codex`, pinned) against the Responses door (issue 78 §1): a custom
// provider with `wire_api = "responses"` pointed at the door with a key, the persona as the model.
// `codex exec` asks; the mind, offered Codex's own shell, calls it; Codex runs the command on its
// machine (here: a scratch folder) and sends the output back; the same turn answers with it. The
// door never ran the command: the file it wrote is Codex's.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import type { FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { newKey, startMindAndDoors, type startDoorServer } from './door-server';

useTempAppDirs({ personas: { iris: '# Iris\nWarm and brief.\n' } });
let model: FakeOpenAIServer;
let door: Awaited<ReturnType<typeof startDoorServer>>;
let secret = '';
let scratch = '';

beforeAll(async () => {
  ({ model, door } = await startMindAndDoors());
  secret = await newKey('codex', ['iris']);
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-codex-'));
  fs.mkdirSync(path.join(scratch, 'home'));
  fs.mkdirSync(path.join(scratch, 'work'));
  // Codex's own configuration, as docs/doors.md shows it: a provider of its own for the door.
  fs.writeFileSync(
    path.join(scratch, 'home', 'config.toml'),
    [`model = "persona/iris"`, `model_provider = "agentcsd"`, '', '[model_providers.agentcsd]', 'name = "AgentCSD"', `base_url = "${door.base}/v1"`, 'env_key = "AGENTCSD_KEY"', 'wire_api = "responses"', ''].join('\n'),
  );
}, 60_000);

afterAll(async () => {
  await door?.close();
  await stopOrchestrator();
  await model?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

function codexExec(prompt: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(path.resolve('node_modules/.bin/codex'), ['exec', '--json', '--skip-git-repo-check', '--ephemeral', '--dangerously-bypass-approvals-and-sandbox', '-C', path.join(scratch, 'work'), prompt], {
    env: { NODE_ENV: 'test', PATH: process.env.PATH ?? '', HOME: path.join(scratch, 'home'), CODEX_HOME: path.join(scratch, 'home'), AGENTCSD_KEY: secret, RUST_LOG: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) => child.on('exit', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr }))));
}

describe('codex exec through the Responses door', () => {
  it('answers a prompt; its shell tool runs on Codex’s side and the same turn answers with the output', async () => {
    const run = await codexExec('Make a note for me [[client-shell echo from-codex > proof.txt && cat proof.txt]]');
    const events = run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; item?: { type: string; text?: string; command?: string; aggregated_output?: string } });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
    // Codex ran it, in its own working folder.
    expect(fs.readFileSync(path.join(scratch, 'work', 'proof.txt'), 'utf8').trim()).toBe('from-codex');
    const said = events.filter((event) => event.type === 'item.completed' && event.item?.type === 'agent_message').map((event) => event.item!.text);
    expect(said.at(-1)).toMatch(/^Here is what the tools said: /); // the scripted mind quotes the output's first line (Codex's own header)
    const ran = events.find((event) => event.type === 'item.completed' && event.item?.type === 'command_execution');
    expect(ran?.item?.command).toContain('echo from-codex');
    // One turn in the session: the call handed to Codex, its output stored on it.
    const calls = await (await getDb()).toolCall.findMany({ where: { name: { startsWith: 'client__' } } });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ status: 'succeeded', name: expect.stringMatching(/^client__(shell|shell_command|exec_command)$/) });
    expect(calls[0]!.result).toContain('from-codex');
  }, 120_000);
});
