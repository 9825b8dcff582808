// kill -9 rounds against the real server (shared by e2e/crash.spec.ts and bench/crash.ts).
// Each round: sessions with continuous Subconscious loops and long streaming replies, user
// messages acknowledged with 202, then SIGKILL while a reply is mid-stream and a cycle is
// mid-call (recorded: the control that the kill really landed mid-work). With the server dead:
// SQLite integrity, every acknowledged message stored, the JSONL logs a prefix of the DB rows
// (at most the last transaction missing), the interrupted turn stored nowhere. Some rounds then
// tear the last line of a log, as a kill inside a write would. Restart: the torn line is cut,
// the missing lines replayed, every session resumes its numbering.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { io, type Socket } from 'socket.io-client';
import { folderFingerprint } from '../../test/support/temp-app-dirs';
import { spawnServer } from './spawn-server';

export interface CrashRound {
  round: number;
  /** ms from the round's start (server ready) to the kill. */
  killAfterMs: number;
  midReply: boolean;
  midCycle: boolean;
  acknowledged: number;
  integrity: string;
  /** DB rows without their JSONL line right after the kill (the last transaction's). */
  rowsWithoutLine: number;
  tornLineInjected: boolean;
  restartMs: number;
}

export interface CrashSummary {
  rounds: CrashRound[];
  acknowledgedTotal: number;
  failures: string[];
}

const logFiles = { external: 'external_dialog.jsonl', internal: 'internal_dialog.jsonl', subconscious: 'subconscious.jsonl' } as const;

interface Watch {
  openTurns: Map<string, { deltas: number }>;
  openCycles: Set<number>;
  lastCycle: Map<string, number>;
}

export async function runCrashRounds(input: {
  root: string;
  port: number;
  fakeEndpoint: string;
  rounds: number;
  sessions: number;
  log?: (line: string) => void;
}): Promise<CrashSummary> {
  const log = input.log ?? (() => {});
  const base = `http://127.0.0.1:${input.port}`;
  fs.rmSync(input.root, { recursive: true, force: true });
  const failures: string[] = [];
  const fail = (message: string) => {
    failures.push(message);
    log(`FAIL ${message}`);
  };
  const acknowledged = new Map<number, string>();
  const rounds: CrashRound[] = [];

  let server = await spawnServer({ root: input.root, port: input.port });
  const personasBefore = folderFingerprint(server.personasDir);
  const api = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { origin: base, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as any };
  };
  const layer = (model: string) => ({ backend: 'openai_compatible', model, max_tokens: 1024, endpoint: input.fakeEndpoint });
  const sessionIds: string[] = [];
  for (let index = 0; index < input.sessions; index++) {
    const created = await api('POST', '/api/sessions', {
      persona: 'iris',
      name: `Crash ${index + 1}`,
      models: { c_model: layer('fake-large'), s_model: layer('fake-small') },
      params: { pacing: 'continuous' },
    });
    sessionIds.push(created.body.session.id);
  }
  const databaseFile = path.join(server.dataDir, 'agentcsd.db');

  for (let round = 1; round <= input.rounds; round++) {
    const watch: Watch = { openTurns: new Map(), openCycles: new Set(), lastCycle: new Map() };
    const socket = await watchSessions(base, sessionIds, watch);
    const startedAt = Date.now();
    const earliestKill = startedAt + 400 + Math.random() * 1600;
    let sent = 0;
    let nextSend = 0;
    const ready = () => Date.now() >= earliestKill && [...watch.openTurns.values()].some((turn) => turn.deltas > 0) && watch.openCycles.size > 0;
    // Keep talking (a message every ~0.75 s) until the kill moment has come with a reply
    // mid-stream and a cycle mid-call.
    while (Date.now() < startedAt + 15_000 && !ready()) {
      if (Date.now() >= nextSend) {
        const sessionId = sessionIds[sent % sessionIds.length]!;
        const text = `round ${round} message ${sent}: ${'tell me about the sea and the long evening light. '.repeat(8).trim()}`;
        sent++;
        const answer = await api('POST', `/api/sessions/${sessionId}/messages`, { text });
        if (answer.status === 202) acknowledged.set(answer.body.message.id, text);
        else fail(`round ${round}: message refused with ${answer.status}`);
        nextSend = Date.now() + 500 + Math.random() * 500;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const midReply = [...watch.openTurns.values()].some((turn) => turn.deltas > 0);
    const midCycle = watch.openCycles.size > 0;
    const openTurnIds = [...watch.openTurns.keys()];
    server.child.kill('SIGKILL');
    const killAfterMs = Date.now() - startedAt;
    await server.exited;
    socket.close();

    // The dead server's files.
    const database = new Database(databaseFile, { readonly: true });
    const integrity = String(database.pragma('integrity_check', { simple: true }));
    if (integrity !== 'ok') fail(`round ${round}: integrity_check says ${integrity}`);
    const stored = new Map((database.prepare('SELECT id, content FROM messages WHERE tag = ?').all('ED_user') as { id: number; content: string }[]).map((row) => [row.id, row.content]));
    for (const [id, text] of acknowledged) if (stored.get(id) !== text) fail(`round ${round}: acknowledged message ${id} is not stored`);
    for (const turnId of openTurnIds) {
      const rows = database.prepare('SELECT count(*) AS n FROM messages WHERE turn_id = ? AND tag != ?').get(turnId, 'ED_user') as { n: number };
      if (rows.n > 0) fail(`round ${round}: the turn cut by the kill (${turnId}) left ${rows.n} rows`);
    }
    let rowsWithoutLine = 0;
    const rowCounts = new Map<string, number>();
    for (const sessionId of sessionIds) {
      for (const [layer, file] of Object.entries(logFiles)) {
        const rows = database.prepare('SELECT id, tag, content FROM messages WHERE session_id = ? AND layer = ? ORDER BY id').all(sessionId, layer) as { id: number; tag: string; content: string }[];
        rowCounts.set(`${sessionId}/${layer}`, rows.length);
        const lines = readLines(path.join(server.dataDir, 'logs', sessionId, file));
        const mismatch = lines.findIndex((line, index) => line.tag !== rows[index]?.tag || line.content !== rows[index]?.content);
        if (mismatch !== -1) fail(`round ${round}: ${file} line ${mismatch + 1} of ${sessionId} does not match its row`);
        if (rows.length - lines.length > 3 || rows.length < lines.length) fail(`round ${round}: ${file} of ${sessionId} has ${lines.length} lines for ${rows.length} rows`);
        rowsWithoutLine += Math.max(0, rows.length - lines.length);
      }
      const last = database.prepare('SELECT max(cycle_number) AS n FROM mood_and_criteria WHERE session_id = ?').get(sessionId) as { n: number | null };
      watch.lastCycle.set(sessionId, last.n ?? 0);
    }
    database.close();
    const tornLineInjected = round % 2 === 0;
    if (tornLineInjected) fs.appendFileSync(path.join(server.dataDir, 'logs', sessionIds[0]!, logFiles.external), '{"timestamp":"2026-11-22T10:');

    // Restart: logs mended, sessions resume where they were.
    const restartStarted = Date.now();
    server = await spawnServer({ root: input.root, port: input.port });
    const restartMs = Date.now() - restartStarted;
    const resumed = await waitForCycles(base, sessionIds, watch.lastCycle);
    if (!resumed) fail(`round ${round}: not every session resumed with its next cycle`);
    for (const sessionId of sessionIds) {
      for (const [layer, file] of Object.entries(logFiles)) {
        const lines = readLines(path.join(server.dataDir, 'logs', sessionId, file), { strict: true });
        const needed = rowCounts.get(`${sessionId}/${layer}`)!;
        if (lines.length < needed) fail(`round ${round}: after restart ${file} of ${sessionId} still misses ${needed - lines.length} lines`);
      }
    }
    const result = { round, killAfterMs, midReply, midCycle, acknowledged: acknowledged.size, integrity, rowsWithoutLine, tornLineInjected, restartMs };
    rounds.push(result);
    log(JSON.stringify(result));
  }

  server.child.kill('SIGTERM');
  await server.exited;
  // Numbering survived every kill: cycles 1..n once each, per session.
  const database = new Database(databaseFile, { readonly: true });
  for (const sessionId of sessionIds) {
    const cycles = (database.prepare('SELECT cycle_number AS n FROM mood_and_criteria WHERE session_id = ? ORDER BY id').all(sessionId) as { n: number }[]).map((row) => row.n);
    if (cycles.some((cycle, index) => cycle !== index + 1)) fail(`cycle numbers of ${sessionId} are not 1..${cycles.length} in order`);
  }
  database.close();
  if (folderFingerprint(server.personasDir) !== personasBefore) fail('the personas folder changed during the run');
  return { rounds, acknowledgedTotal: acknowledged.size, failures };
}

/** Complete lines of a log; `strict` also fails on a torn last line. */
function readLines(file: string, options: { strict?: boolean } = {}): { tag: string; content: string }[] {
  if (!fs.existsSync(file)) return [];
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const last = lines.pop();
  if (options.strict && last !== '') throw new Error(`${file} ends with a torn line`);
  return lines.map((line) => JSON.parse(line) as { tag: string; content: string });
}

async function watchSessions(base: string, sessionIds: string[], watch: Watch): Promise<Socket> {
  const socket = io(base, { transports: ['websocket'], extraHeaders: { origin: base }, reconnection: false });
  socket.on('turn-start', (event: { turnId: string }) => watch.openTurns.set(event.turnId, { deltas: 0 }));
  socket.on('reply-delta', (event: { turnId: string }) => {
    const turn = watch.openTurns.get(event.turnId);
    if (turn) turn.deltas++;
  });
  socket.on('turn-end', (event: { turnId: string }) => watch.openTurns.delete(event.turnId));
  socket.on('cycle-start', (event: { sessionId: string; cycle: number }) => watch.openCycles.add(cycleKey(sessionIds, event)));
  socket.on('subconscious-output', (event: { sessionId: string; cycle: number }) => watch.openCycles.delete(cycleKey(sessionIds, event)));
  socket.on('error', (event: { sessionId: string; cycle?: number }) => {
    if (event.cycle !== undefined) watch.openCycles.delete(cycleKey(sessionIds, { sessionId: event.sessionId, cycle: event.cycle }));
  });
  await new Promise<void>((resolve, reject) => {
    socket.on('connect_error', reject);
    socket.on('connect', async () => {
      for (const sessionId of sessionIds) await socket.emitWithAck('join', { sessionId });
      resolve();
    });
  });
  return socket;
}

function cycleKey(sessionIds: string[], event: { sessionId: string; cycle: number }): number {
  return sessionIds.indexOf(event.sessionId) * 1_000_000 + event.cycle;
}

async function waitForCycles(base: string, sessionIds: string[], lastCycle: Map<string, number>): Promise<boolean> {
  const pending = new Set(sessionIds);
  const socket = io(base, { transports: ['websocket'], extraHeaders: { origin: base }, reconnection: false });
  socket.on('subconscious-output', (event: { sessionId: string; cycle: number }) => {
    if (event.cycle > (lastCycle.get(event.sessionId) ?? 0)) pending.delete(event.sessionId);
  });
  await new Promise<void>((resolve) => socket.on('connect', async () => {
    for (const sessionId of sessionIds) await socket.emitWithAck('join', { sessionId });
    resolve();
  }));
  const deadline = Date.now() + 20_000;
  while (pending.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  socket.close();
  return pending.size === 0;
}
