// Issue 35 §1: a folder of the workspace swapped with a symlink to a folder outside, atomically
// and in a tight loop (renameat2 RENAME_EXCHANGE, as a sandboxed process can), while the file
// tools run again and again. Whatever the timing, no byte or name from outside appears in any
// result, and nothing is created outside (a watcher on the outside folder sees every attempt).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fileTools } from '@/lib/tools/file-tools';
import type { ToolOutcome } from '@/lib/tools/tool-types';

const CANARY = 'CANARY-race-0b1d2f-outside';
const ROUNDS = 150;

// Swaps two names atomically for as long as it lives (a folder and a symlink: each name is in
// turn the real folder and the link to outside).
const SWAPPER = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
print('ready', flush=True)
while True:
    libc.renameat2(-100, a, -100, b, 2)
`;

let base: string;
let workspace: string;
let outside: string;
let swapper: ChildProcess;
let swaps = 0;
const outsideEvents: string[] = [];
let watcher: fs.FSWatcher;

async function call(name: string, args: unknown): Promise<ToolOutcome> {
  const tool = fileTools.find((candidate) => candidate.definition.name === name)!;
  const parsed = tool.args.parse(args);
  return tool.run(parsed as never, { sessionId: 's1', workspaceDir: workspace, signal: new AbortController().signal });
}

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-race-')));
  workspace = path.join(base, 'workspace');
  outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(workspace, 'notes', 'deeper'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(workspace, 'notes', 'plan.txt'), 'root: the plan\n');
  fs.writeFileSync(path.join(workspace, 'notes', 'deeper', 'more.txt'), 'root: more\n');
  fs.writeFileSync(path.join(outside, 'plan.txt'), `root: ${CANARY}\n`);
  fs.writeFileSync(path.join(outside, `${CANARY}.txt`), `root: ${CANARY}\n`);
  fs.mkdirSync(path.join(outside, 'deeper'));
  fs.writeFileSync(path.join(outside, 'deeper', 'more.txt'), `root: ${CANARY}\n`);
  fs.symlinkSync(outside, path.join(workspace, 'link'));
  watcher = fs.watch(outside, { recursive: false }, (event, file) => outsideEvents.push(`${event} ${file}`));
  swapper = spawn('python3', ['-c', SWAPPER, path.join(workspace, 'notes'), path.join(workspace, 'link')], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    swapper.once('error', reject);
    swapper.stdout!.once('data', () => resolve());
  });
});

afterAll(() => {
  swapper?.kill('SIGKILL');
  watcher?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

it('grep, list_files, read_file, write_file and edit_file never reach outside while a folder is swapped for a symlink', async () => {
  const seen = { notesListed: 0, notesGrepped: 0, readOk: 0, writeOk: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const results = await Promise.all([
      call('grep', { pattern: '^root:' }),
      call('grep', { pattern: 'root', path: 'notes' }),
      call('list_files', { recursive: true }),
      call('list_files', { path: 'notes', recursive: true }),
      call('read_file', { path: 'notes/plan.txt' }),
      call('write_file', { path: `notes/written-${round}.txt`, content: 'root: written\n' }),
      call('edit_file', { path: 'notes/plan.txt', old_string: 'the plan', new_string: 'the plan' }),
    ]);
    for (const result of results) expect(result.content).not.toContain(CANARY);
    if (results[0]!.content.includes('notes/plan.txt')) seen.notesGrepped++;
    if (results[2]!.content.includes('notes/deeper/')) seen.notesListed++;
    if (!results[4]!.isError) seen.readOk++;
    if (!results[5]!.isError) seen.writeOk++;
  }
  swaps++;
  // Nothing was created, renamed or written in the outside folder.
  expect(outsideEvents).toEqual([]);
  expect(fs.readdirSync(outside).sort()).toEqual([`${CANARY}.txt`, 'deeper', 'plan.txt'].sort());
  // The race was real: the tools saw the folder sometimes (and were refused other times).
  expect(seen.notesGrepped + seen.notesListed + seen.readOk + seen.writeOk).toBeGreaterThan(0);
  expect(swaps).toBe(1);
}, 120_000);
