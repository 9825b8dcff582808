// A user's stdio MCP server as a child in its own process group, with a minimal environment:
// the variables a program needs to start (PATH, HOME, locale, temp) and what the user's
// configuration sets — never the app's API keys or tokens. Closing it ends the whole group
// (npx wrappers, shells, grandchildren), first politely, then with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Inherited from the app's environment; everything else comes from the server's own `env`. */
const INHERITED = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'XDG_RUNTIME_DIR', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE'];

export function minimalServerEnv(own: Record<string, string>, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED) {
    const value = source[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return { ...env, ...own };
}

/** The last bytes a server wrote to stderr: why it failed, for Settings. */
const STDERR_KEEP = 4_096;
const KILL_AFTER_MS = 2_000;

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | null = null;
  private readonly buffer = new ReadBuffer();
  private stderrTail = '';
  private closed = false;

  constructor(private readonly params: { command: string; args: string[]; env: Record<string, string>; cwd?: string }) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** What the server last wrote to stderr (trimmed). */
  stderr(): string {
    return this.stderrTail.trim();
  }

  start(): Promise<void> {
    if (this.child) throw new Error('already started');
    return new Promise((resolve, reject) => {
      const child: ChildProcess = spawn(this.params.command, this.params.args, {
        env: minimalServerEnv(this.params.env) as NodeJS.ProcessEnv,
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // its own process group: close() ends every process it started
        shell: false,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', (code, signal) => {
        if (!this.closed && (code !== 0 || signal)) {
          const reason = `the server exited${signal ? ` on ${signal}` : ` with code ${code}`}${this.stderr() ? `: ${this.stderr().slice(-500)}` : ''}`;
          this.onerror?.(new Error(reason));
        }
        this.child = null;
        this.onclose?.();
      });
      child.stdout!.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk); // throws past 10 MB without a newline
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          void this.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            // A line that is not JSON-RPC (a server printing logs to stdout): reported, skipped.
            this.onerror?.(error instanceof Error ? error : new Error(String(error)));
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEEP);
      });
      child.stdin!.on('error', (error) => this.onerror?.(error));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the server is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (!child || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.stdin?.end();
    killGroup(child.pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), KILL_AFTER_MS);
    await exited;
    clearTimeout(timer);
    killGroup(child.pid, 'SIGKILL'); // grandchildren that ignored SIGTERM
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}
