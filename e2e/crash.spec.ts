// kill -9 of the real server mid-reply and mid-cycle, a few rounds (bench/crash.ts runs 50; the
// figures are in docs/reliability.md), then SIGTERM during a reply: a clean, quick exit.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from '@playwright/test';
import { runCrashRounds } from './support/crash-rounds';
import { fakeLlmEndpoint } from './support/fake-models';
import { spawnServer } from './support/spawn-server';

const port = Number(process.env.E2E_CRASH_PORT ?? 3213);

test('kill -9 mid-reply and mid-cycle, 3 rounds: nothing acknowledged is lost, logs mend, sessions resume', async () => {
  test.setTimeout(180_000);
  const summary = await runCrashRounds({ root: 'test-results/e2e-crash', port, fakeEndpoint: fakeLlmEndpoint, rounds: 3, sessions: 2, log: console.log });
  expect(summary.failures).toEqual([]);
  expect(summary.rounds).toHaveLength(3);
  // The control: every kill landed while a reply was streaming and a cycle was waiting on the model.
  for (const round of summary.rounds) expect(round).toMatchObject({ midReply: true, midCycle: true, integrity: 'ok' });
  expect(summary.acknowledgedTotal).toBeGreaterThan(3);
});

test('SIGTERM during a reply: sessions paused, the part already said kept as interrupted, exit within seconds', async () => {
  const root = 'test-results/e2e-sigterm';
  fs.rmSync(root, { recursive: true, force: true });
  const server = await spawnServer({ root, port });
  const base = `http://127.0.0.1:${port}`;
  const post = async (url: string, body: unknown) =>
    (await fetch(`${base}${url}`, { method: 'POST', headers: { origin: base, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
  const layer = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 1024, endpoint: fakeLlmEndpoint });
  const { session } = await post('/api/sessions', { persona: 'iris', name: 'Shut down', models: { c_model: layer('fake-large'), s_model: layer('fake-small') } });
  // A reply of ~2,400 characters streams for about nine seconds at the fake's pace (4 characters
  // per 15 ms): longer than the 3 s the server grants a running reply on shutdown.
  const text = 'a long one: '.repeat(200).trim();
  const { message } = await post(`/api/sessions/${session.id}/messages`, { text });
  const databaseFile = path.join(server.dataDir, 'agentcsd.db');
  await new Promise((resolve) => setTimeout(resolve, 1_500));

  server.child.kill('SIGTERM');
  const exit = await server.exited;
  // Exit code 0: the graceful path. Past its own hard limit the server exits 1 (how long the
  // graceful path takes is measured in bench/stop-times.ts).
  expect(exit.code).toBe(0);

  const database = new Database(databaseFile, { readonly: true });
  expect(database.prepare('SELECT status FROM sessions WHERE id = ?').get(session.id)).toEqual({ status: 'paused' });
  const user = database.prepare('SELECT turn_id FROM messages WHERE id = ?').get(message.id) as { turn_id: string | null };
  const reply = database.prepare("SELECT content, interrupted FROM messages WHERE session_id = ? AND tag = 'ED_agent'").all(session.id) as { content: string; interrupted: number }[];
  // What was said before the cut is kept, marked interrupted — never stored as a complete reply.
  expect(reply).toHaveLength(1);
  expect(reply[0]!.interrupted).toBe(1);
  expect(reply[0]!.content.length).toBeGreaterThan(20);
  expect(`You said: ${text}`.startsWith(reply[0]!.content)).toBe(true);
  expect(reply[0]!.content.length).toBeLessThan(`You said: ${text}`.length);
  expect(user.turn_id).not.toBeNull();
  expect(String(database.pragma('integrity_check', { simple: true }))).toBe('ok');
  database.close();
  expect(server.output()).toContain('SIGTERM: pausing sessions and closing');
});
