// A real PostgreSQL for tests and benchmarks, started in a temporary folder on a loopback port
// (Debian's `postgresql` package, installed by .ci/run when missing): initdb, then the server as a
// child process — as the `postgres` user when we are root (PostgreSQL refuses to run as root).
// fsync is off (the OS keeps what a killed server wrote; only a machine crash would lose it) but
// commits are synchronous: a server killed with SIGKILL keeps every commit it acknowledged.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  /** The server's `postgres` database. */
  url: string;
  /** Another database on the same server (the app and DBOS create theirs on first use). */
  urlFor(database: string): string;
  port: number;
  /** The server process (a test may kill it). */
  process: ChildProcess;
  /** Kills the server with SIGKILL (no shutdown at all) and starts it again on the same data and port. */
  crashAndRestart(): Promise<void>;
  /** Stops the server as an operator would (a fast shutdown), keeps it down for `ms`, then starts it again on the same data and port. */
  outage(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/** The same server's database `name`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export function postgresBinDir(): string | null {
  const fromEnv = process.env.AGENTCSD_PG_BIN;
  if (fromEnv && fs.existsSync(path.join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) if (fs.existsSync(path.join(root, version, 'bin', 'initdb'))) return path.join(root, version, 'bin');
  return null;
}

function owner(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const user of ['postgres', 'nobody']) {
    try {
      return { uid: Number(execFileSync('id', ['-u', user]).toString().trim()), gid: Number(execFileSync('id', ['-g', user]).toString().trim()) };
    } catch {
      // try the next one
    }
  }
  throw new Error('running as root and neither a postgres nor a nobody user exists to run PostgreSQL as');
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPostgres(options: { port?: number } = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql; .ci/run does it)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-pg-'));
  const data = path.join(dir, 'data');
  const user = owner();
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  execFileSync(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'], { ...as, stdio: 'pipe' });
  const port = options.port ?? (await freePort());
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off'], {
      ...as,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr!.on('data', (chunk) => (log = (log + String(chunk)).slice(-4000)));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.end();
        return child;
      } catch {
        await client.end().catch(() => undefined);
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`PostgreSQL did not start on ${port}: ${log}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const stopped = (child: ChildProcess, signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    return exited;
  };
  const database: TestPostgres = {
    url,
    urlFor: (name) => databaseUrl(url, name),
    port,
    process: await launch(),
    async crashAndRestart() {
      await stopped(database.process, 'SIGKILL');
      // The killed server's backends notice and end a moment later (longer on a loaded machine);
      // until then a new server refuses the data folder whose shared memory they still hold.
      const deadline = Date.now() + 15_000;
      for (;;) {
        try {
          database.process = await launch();
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    },
    async outage(ms) {
      await stopped(database.process, 'SIGINT');
      await new Promise((resolve) => setTimeout(resolve, ms));
      database.process = await launch();
    },
    async stop() {
      await stopped(database.process, 'SIGINT'); // fast shutdown
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return database;
}
