// Starts the real server (production build in .next, the server compiled as `npm start` runs it)
// as its own process with its own data and personas folders: for tests that need a different bind,
// or that kill it. Node itself rather than a wrapper, so the PID is the server and a signal
// reaches it directly. The server is compiled once per process from the sources as they are now.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildServer, COMPILED_SERVER } from '../../scripts/build-server';

let compiled: Promise<void> | undefined;

export interface SpawnedServer {
  child: ChildProcess;
  port: number;
  dataDir: string;
  personasDir: string;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function serverFolders(root: string): { dataDir: string; personasDir: string } {
  const dataDir = path.join(root, 'data');
  const personasDir = path.join(root, 'personas');
  if (!fs.existsSync(personasDir)) fs.cpSync('personas', personasDir, { recursive: true });
  fs.mkdirSync(dataDir, { recursive: true });
  return { dataDir, personasDir };
}

export async function spawnServer(input: { root: string; port: number; host?: string; env?: Record<string, string> }): Promise<SpawnedServer> {
  const { dataDir, personasDir } = serverFolders(input.root);
  compiled ??= buildServer();
  await compiled;
  const child = spawn(process.execPath, ['--enable-source-maps', COMPILED_SERVER], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(input.port),
      HOST: input.host ?? '127.0.0.1',
      AGENTCSD_DATA_DIR: dataDir,
      AGENTCSD_PERSONAS_DIR: personasDir,
      NEXT_TELEMETRY_DISABLED: '1',
      ...input.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const server: SpawnedServer = { child, port: input.port, dataDir, personasDir, output: () => output, exited };

  const deadline = Date.now() + 60_000;
  while (!output.includes('> AgentCSD ready on')) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server;
}
