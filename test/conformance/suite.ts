// The official MCP conformance suite's runner, shared by the tests that drive it: its CLI on the
// Node 22 it needs (the `node` package in test/conformance/runner, installed with npm ci on first
// use; the app's own Node is unchanged), run in a scratch folder, and its summary lines.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const conformanceDir = path.resolve('test/conformance');
const runnerDir = path.join(conformanceDir, 'runner');
export const node22 = path.join(runnerDir, 'node_modules/node/bin/node');
const cli = path.join(runnerDir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** Installs the runner when it is missing (a fresh clone). */
export function ensureRunner(): void {
  if (!fs.existsSync(cli) || !fs.existsSync(node22)) execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: runnerDir, stdio: 'inherit', timeout: 300_000 });
}

export function conformance(args: string[]): Promise<{ code: number | null; output: string }> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-conformance-results-'));
  return new Promise((resolve) => {
    // Our client keeps its store in SQLite in a folder of its own (client.ts), whatever this run uses.
    const { AGENTCSD_DATABASE_URL: _postgres, ...env } = process.env;
    const child = spawn(node22, [cli, ...args], { cwd, env: { ...env, AGENTCSD_NODE: process.execPath } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => {
      fs.rmSync(cwd, { recursive: true, force: true });
      resolve({ code, output });
    });
  });
}

/** The summary lines (✓/✗ per scenario and the totals), for a readable failure. */
export const summary = (output: string) =>
  output
    .split('\n')
    .filter((line) => /^[✓✗]|Total|OVERALL|baseline|regression|Unexpected|stale/i.test(line.trim()))
    .join('\n');
