// The Claude Code CLI (the seed's default backend: it uses the user's subscription). Each call
// spawns `claude -p --output-format stream-json …` in its own process group from a neutral folder,
// prompt on stdin; abort kills the whole group so no process is left behind.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { BackendError } from './backend-error';
import { toAnthropicBlock } from './anthropic-backend';
import { CliStreamInterpreter, parseCliLine } from './claude-cli-stream-line';
import { systemText, type BackendRequest, type ModelBackend, type StreamPart } from './model-backend';
import { cliModelListing, type ModelListing } from '@/lib/config/model-catalog';
import { appCliWarmPool, type CliWarmPool, type WarmProcess } from './cli-warm-pool';
import { currentTraceparent } from '@/lib/telemetry/traces';

export interface ClaudeCodeCliBackendOptions {
  cliPath?: string;
  /** Extra environment for the child (tests: HOME, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY). */
  env?: Record<string, string>;
  workingDirectory?: string;
  /** Grace between SIGTERM and SIGKILL of the process group on abort. */
  killGraceMs?: number;
  /** Processes started ahead (default: the app's pool, AGENTCSD_CLI_WARM). */
  warmPool?: CliWarmPool<WarmCli>;
}

const spawnOptions = { detached: true, reject: false, buffer: { stdout: false, stderr: true }, maxBuffer: { stderr: 64 * 1024 }, stripFinalNewline: true, extendEnv: false } as const;
type CliProcess = ResultPromise<typeof spawnOptions & { cwd: string; env: Record<string, string> }>;

/** A CLI process waiting on stdin for its prompt (the call that takes it writes the prompt). */
export interface WarmCli extends WarmProcess {
  subprocess: CliProcess;
}

/** Ends the process group (the CLI and anything it started); quiet if already gone. */
function killGroup(subprocess: CliProcess, signal: NodeJS.Signals): void {
  if (subprocess.pid === undefined) return;
  try {
    process.kill(-subprocess.pid, signal);
  } catch {
    // already gone
  }
}

function spawnCli(executable: string, args: string[], cwd: string, env: Record<string, string>): CliProcess {
  // detached: its own process group, so abort kills grandchildren too.
  const subprocess = execa(executable, args, { ...spawnOptions, cwd, env });
  // A process ended before it was given its prompt: nothing reads the promise's rejection.
  subprocess.stdin?.on('error', () => undefined);
  return subprocess;
}

function warmCli(subprocess: CliProcess): WarmCli {
  return {
    subprocess,
    kill: () => {
      killGroup(subprocess, 'SIGKILL');
      void subprocess.catch(() => undefined);
    },
    alive: () => subprocess.exitCode === null && subprocess.signalCode === null,
  };
}

// Linux limits one argv string to 128 KiB; longer system prompts go through a file.
const maxInlineSystemPrompt = 100_000;

/** Finds the binary like a shell would, so a missing CLI is reported plainly before spawning. */
export function resolveExecutable(command: string, envPath = process.env.PATH ?? ''): string | undefined {
  const candidates = command.includes('/') ? [path.resolve(command)] : envPath.split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, command));
  return candidates.find((candidate) => {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return fs.statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * What the CLI reads on stdin: the prompt as text; or, when the user turn carries images or a
 * PDF, one `--input-format stream-json` line whose message has the Messages API's content
 * blocks (the CLI forwards them as they are: PROTOCOLS.md).
 */
export function buildCliInput(request: BackendRequest): { args: string[]; input: string } {
  const only = request.messages.length === 1 ? request.messages[0]! : null;
  const visual = only?.blocks?.some((block) => block.type === 'image' || block.type === 'document');
  if (!only || !visual) return { args: [], input: buildCliPrompt(request) };
  const line = { type: 'user', message: { role: 'user', content: only.blocks!.map(toAnthropicBlock) } };
  return { args: ['--input-format', 'stream-json'], input: `${JSON.stringify(line)}\n` };
}

export function buildCliPrompt(request: BackendRequest): string {
  if (request.messages.length === 1 && request.messages[0]!.role === 'user') return request.messages[0]!.content;
  return request.messages.map((message) => `${message.role === 'user' ? 'User' : 'Assistant'}: ${message.content}`).join('\n\n');
}

export const TOOL_SERVER_TOKEN_VARIABLE = 'AGENTCSD_TOOL_TOKEN';

/**
 * With tools: only the app's MCP server (`--strict-mcp-config`, no built-in tools), reached with
 * a bearer token the CLI expands from its environment (never in argv), and every call asked
 * through the app's permission tool (none is pre-allowed, so each one is decided by the app).
 */
export function toolServerArgs(request: BackendRequest): string[] {
  const server = request.toolServer;
  if (!server || !request.tools?.length) return [];
  const config = { mcpServers: { [server.name]: { type: 'http', url: server.url, headers: { Authorization: `Bearer \${${TOOL_SERVER_TOKEN_VARIABLE}}` } } } };
  return ['--mcp-config', JSON.stringify(config), '--strict-mcp-config', '--permission-prompt-tool', `mcp__${server.name}__${server.permissionTool}`];
}

export class ClaudeCodeCliBackend implements ModelBackend {
  readonly kind = 'claude_code_cli' as const;
  private readonly cliPath: string;

  constructor(private readonly options: ClaudeCodeCliBackendOptions = {}) {
    this.cliPath = options.cliPath?.trim() || 'claude';
  }

  async *stream(request: BackendRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
    const env = { ...process.env, ...this.options.env } as Record<string, string>;
    const executable = resolveExecutable(this.cliPath, env.PATH);
    if (!executable) {
      yield { type: 'error', error: new BackendError({ kind: 'cli_missing', message: `Claude Code CLI not found at ${JSON.stringify(this.cliPath)}: install Claude Code or set the CLI path in Settings` }) };
      return;
    }
    if (signal.aborted) return;

    const workingDirectory = this.options.workingDirectory ?? path.join(os.tmpdir(), 'agentcsd-claude-cli');
    fs.mkdirSync(workingDirectory, { recursive: true });
    const system = systemText(request.system);
    let systemFile: string | undefined;
    const systemArgs: string[] = [];
    if (Buffer.byteLength(system) > maxInlineSystemPrompt) {
      systemFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-system-')), 'system.md');
      fs.writeFileSync(systemFile, system, { mode: 0o600 });
      systemArgs.push('--system-prompt-file', systemFile);
    } else {
      systemArgs.push('--system-prompt', system);
    }
    const cliInput = buildCliInput(request);
    const args = [
      '-p',
      '--output-format', 'stream-json',
      '--verbose',
      '--include-partial-messages',
      ...systemArgs,
      '--model', request.model,
      '--tools', '',
      '--no-session-persistence',
      ...toolServerArgs(request),
      ...cliInput.args,
    ];

    const childEnv = {
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      ...env,
      // The tool server's token reaches the child only here (its --mcp-config names the variable).
      ...(request.toolServer && { [TOOL_SERVER_TOKEN_VARIABLE]: request.toolServer.token }),
    };
    // A call with a per-call token or a prompt file cannot be started ahead: its arguments are new each time.
    const pool = request.toolServer || systemFile ? undefined : (this.options.warmPool ?? appCliWarmPool<WarmCli>());
    const key = pool && createHash('sha256').update(JSON.stringify([executable, args, workingDirectory, this.options.env ?? {}])).digest('base64url');
    const warm = key ? pool?.take(key, request.sessionId) : undefined;
    // Started for this call: the call's trace context goes along as TRACEPARENT (OpenTelemetry's
    // variable for a child process), so a CLI that traces itself joins the turn's trace. One started
    // ahead cannot know the call it will serve.
    const traceparent = warm ? undefined : currentTraceparent();
    const subprocess = warm?.subprocess ?? spawnCli(executable, args, workingDirectory, traceparent ? { ...childEnv, TRACEPARENT: traceparent } : childEnv);
    subprocess.stdin?.end(cliInput.input);
    const killGroupOf = (sig: NodeJS.Signals) => killGroup(subprocess, sig);
    let forceTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      killGroupOf('SIGTERM');
      forceTimer = setTimeout(() => killGroupOf('SIGKILL'), this.options.killGraceMs ?? 500);
    };
    signal.addEventListener('abort', onAbort, { once: true });

    const interpreter = new CliStreamInterpreter({ toolServer: request.toolServer?.name });
    let failed = false;
    try {
      for await (const line of subprocess.iterable({ from: 'stdout' })) {
        if (signal.aborted) break;
        if (!line.trim()) continue;
        for (const part of interpreter.accept(parseCliLine(line))) {
          if (part.type === 'error') {
            failed = true;
            yield part;
            break;
          }
          yield part;
        }
        if (failed) break;
      }
    } catch {
      // The iterable throws when the process fails; its exit status is examined below.
    } finally {
      if (failed || signal.aborted) onAbort();
    }
    const result = await subprocess;
    signal.removeEventListener('abort', onAbort);
    if (forceTimer) clearTimeout(forceTimer);
    killGroupOf('SIGKILL'); // nothing of this call may outlive it
    if (systemFile) fs.rmSync(path.dirname(systemFile), { recursive: true, force: true });
    if (signal.aborted || failed) return;
    // The next call with these arguments finds its process started (after this one, not beside it).
    if (key && interpreter.result) pool?.offer(key, () => warmCli(spawnCli(executable, args, workingDirectory, childEnv)), request.sessionId);

    if (interpreter.result) return; // success or a typed error was already yielded
    const stderrExcerpt = String(result.stderr ?? '').slice(-2000);
    yield {
      type: 'error',
      error: new BackendError({
        kind: 'cli_failed',
        message:
          result.exitCode === 0
            ? 'Claude Code CLI ended without a result line'
            : `Claude Code CLI exited with ${result.exitCode ?? result.signal}${stderrExcerpt ? `: ${stderrExcerpt.split('\n').slice(-3).join(' ')}` : ''}`,
        exitCode: result.exitCode,
        stderrExcerpt,
        afterOutput: interpreter.producedOutput,
      }),
    };
  }

  /** The CLI has no model list of its own: its aliases, then the full ids it accepts. */
  async listModels(): Promise<ModelListing[]> {
    return cliModelListing();
  }
}
