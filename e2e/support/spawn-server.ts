// Starts the real server (production build in .next, the server compiled as `npm start` runs it)
// as its own process with its own data and personas folders: for tests that need a different bind,
// or that kill it. Node itself rather than a wrapper, so the PID is the server and a signal
// reaches it directly. The server is compiled once per process from the sources as they are now.
// `dev`: `npm run dev` instead (the sources through tsx, Next compiling pages as they are asked for).
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

export async function spawnServer(input: { root: string; port: number; host?: string; env?: Record<string, string>; dev?: boolean }): Promise<SpawnedServer> {
  const { dataDir, personasDir } = serverFolders(input.root);
  if (!input.dev) {
    compiled ??= buildServer();
    await compiled;
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(input.port),
    HOST: input.host ?? '127.0.0.1',
    AGENTCSD_DATA_DIR: dataDir,
    AGENTCSD_PERSONAS_DIR: personasDir,
    NEXT_TELEMETRY_DISABLED: '1',
    ...input.env,
  };
  if (input.dev) {
    // As a person's shell runs `npm run dev`: Next's development mode, and none of the test
    // runner's own hooks (its NODE_OPTIONS loaders and PW_* switches would reach Next's workers).
    for (const name of Object.keys(env)) if (name === 'NODE_ENV' || name === 'NODE_OPTIONS' || /^(PW_|PLAYWRIGHT_|TEST_WORKER|TEST_PARALLEL)/.test(name)) delete (env as Record<string, unknown>)[name];
  }
  // `npm run dev` at a lower CPU priority (`nice`, which execs Node: the PID is still the server's):
  // Turbopack's first compiles take both cores for minutes, and the other project's specs share them.
  const command = input.dev ? ['nice', '-n', '5', process.execPath, '--import', 'tsx', 'server.ts'] : [process.execPath, '--enable-source-maps', COMPILED_SERVER];
  const child = spawn(command[0]!, command.slice(1), {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const server: SpawnedServer = { child, port: input.port, dataDir, personasDir, output: () => output, exited };

  const deadline = Date.now() + (input.dev ? 180_000 : 60_000);
  while (!output.includes('> AgentCSD ready on')) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server;
}
