// A real IRC server for the IRC channel's tests: Debian's ngircd (.ci/run installs it) on a
// loopback port, with a temporary configuration, in the foreground (-n) so the test owns it and
// can kill it and start it again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, listening } from './loopback-ports';

export const ngircdPath = ['/usr/sbin/ngircd', '/usr/bin/ngircd'].find((candidate) => fs.existsSync(candidate)) ?? null;

export interface TestIrcServer {
  port: number;
  /** Kills the server (SIGKILL: every client sees its connection drop). */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startNgircd(): Promise<TestIrcServer> {
  if (!ngircdPath) throw new Error('ngircd is not installed (apt-get install ngircd; .ci/run does it)');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-ngircd-'));
  fs.chmodSync(folder, 0o755);
  const port = await freePort();
  const config = path.join(folder, 'ngircd.conf');
  fs.writeFileSync(
    config,
    [
      '[Global]',
      'Name = irc.agentcsd.test',
      'Info = AgentCSD test server',
      'AdminInfo1 = tests',
      'AdminEMail = tests@localhost',
      'Listen = 127.0.0.1',
      `Ports = ${port}`,
      'MotdPhrase = test server',
      '[Limits]',
      'MaxConnectionsIP = 0',
      'PingTimeout = 120',
      'PongTimeout = 20',
      '[Options]',
      'PAM = no',
      'Ident = no',
      'DNS = no',
      '',
    ].join('\n'),
  );
  fs.chmodSync(config, 0o644);
  let child: ChildProcess | null = null;
  let output = '';
  const launch = async () => {
    child = spawn(ngircdPath, ['-n', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    await listening(port, Date.now() + 10_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });
  };
  const kill = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    port,
    kill,
    restart: launch,
    async stop() {
      await kill();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
