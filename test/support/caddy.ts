// A real HTTPS reverse proxy for the web sign-in's tests (issue 61 §4): Debian's Caddy (.ci/run
// installs it) on a loopback port with its own internal CA, in a temporary folder, no admin API,
// nothing installed in the system's trust store. The test's client accepts its certificate (or is
// handed `rootCertificate`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listening } from './loopback-ports';

export const caddyPath = ['/usr/bin/caddy', '/usr/local/bin/caddy'].find((candidate) => fs.existsSync(candidate)) ?? null;

export interface TestCaddy {
  /** `https://<name>:<port>` */
  origin: string;
  /** Caddy's local CA root (PEM), once it has made it. */
  rootCertificate(): string;
  stop(): Promise<void>;
}

export async function startCaddy(input: { name: string; port: number; upstream: number }): Promise<TestCaddy> {
  if (!caddyPath) throw new Error('caddy is not installed (apt-get install caddy; .ci/run does it)');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-caddy-'));
  const config = path.join(folder, 'Caddyfile');
  fs.writeFileSync(
    config,
    [
      '{',
      '\tadmin off',
      '\tskip_install_trust',
      '\tauto_https disable_redirects',
      `\tstorage file_system ${path.join(folder, 'data')}`,
      '}',
      `https://${input.name}:${input.port} {`,
      '\tbind 127.0.0.1',
      '\ttls internal',
      `\treverse_proxy 127.0.0.1:${input.upstream}`,
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(caddyPath, ['run', '--config', config, '--adapter', 'caddyfile'], { env: { ...process.env, HOME: folder, XDG_DATA_HOME: folder, XDG_CONFIG_HOME: folder }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    await listening(input.port, Date.now() + 20_000, 'Caddy');
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}:\n${output}`);
  }
  return {
    origin: `https://${input.name}:${input.port}`,
    rootCertificate: () => fs.readFileSync(path.join(folder, 'data', 'pki', 'authorities', 'local', 'root.crt'), 'utf8'),
    async stop() {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
