// What can answer on this machine, so a first run says what works instead of failing in a loop:
// the Claude Code CLI (present, logged in, one tiny call), an Anthropic API key (the free models
// list proves it), and local OpenAI-compatible servers (Ollama, LM Studio) with their models.
import { execa } from 'execa';
import { z } from 'zod';
import { AnthropicBackend } from './anthropic-backend';
import { ClaudeCodeCliBackend, resolveExecutable } from './claude-code-cli-backend';
import { OpenAICompatibleBackend } from './openai-compatible-backend';
import { testConnection } from './test-connection';
import { errorText } from '@/lib/errors/error-text';

export type ProbeStatus = 'ready' | 'not_ready' | 'absent';

export interface Probe {
  status: ProbeStatus;
  /** What was found, in a sentence. */
  message: string;
  /** The exact step that makes this option work, when it does not yet. */
  step?: string;
}

export interface LocalServerProbe extends Probe {
  name: string;
  endpoint: string;
  models: string[];
}

export interface BackendAvailability {
  checked_at: string;
  claude_cli: Probe & { path?: string; version?: string };
  anthropic_api: Probe;
  local_servers: LocalServerProbe[];
  /** True when at least one option can answer now. */
  usable: boolean;
}

export interface DetectOptions {
  cliPath: string;
  /** The environment the CLI runs with (HOME decides its login). */
  env: Record<string, string | undefined>;
  anthropicApiKey?: string;
  anthropicBaseURL?: string;
  ollamaEndpoint: string;
  lmStudioEndpoint: string;
  signal?: AbortSignal;
}

const authStatusSchema = z.object({ loggedIn: z.boolean(), authMethod: z.string().optional() }).passthrough();

const cliInstallStep = 'Install Claude Code (npm install -g @anthropic-ai/claude-code), then run `claude` once and log in — or set its path in Settings.';

function cliEnv(env: DetectOptions['env']): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export async function probeClaudeCli(options: Pick<DetectOptions, 'cliPath' | 'env' | 'signal'>): Promise<BackendAvailability['claude_cli']> {
  const path = resolveExecutable(options.cliPath, options.env.PATH);
  if (!path) return { status: 'absent', message: `No Claude Code CLI at ${JSON.stringify(options.cliPath)}`, step: cliInstallStep };
  const run = (args: string[]) =>
    execa(path, args, { env: options.env, extendEnv: false, reject: false, timeout: 15_000, cancelSignal: options.signal, stdin: 'ignore' });
  const version = (await run(['--version'])).stdout?.toString().trim().split(/\s/)[0];
  const auth = await run(['auth', 'status']);
  let loggedIn: boolean | undefined;
  try {
    loggedIn = authStatusSchema.parse(JSON.parse(String(auth.stdout))).loggedIn;
  } catch {
    loggedIn = undefined; // an older CLI without `auth status`: the call below decides
  }
  const found = { path, ...(version && { version }) };
  if (loggedIn === false) {
    return { ...found, status: 'not_ready', message: `Claude Code CLI ${version ?? ''} is installed but not logged in`.replace('  ', ' '), step: 'Run `claude` in a terminal and log in (or `claude setup-token`), then check again.' };
  }
  const config = { backend: 'claude_code_cli', model: 'haiku', max_tokens: 16, cli_path: path } as const;
  const report = await testConnection(config, { timeoutMs: 45_000, backend: new ClaudeCodeCliBackend({ cliPath: path, env: cliEnv(options.env) }) });
  if (report.ok) return { ...found, status: 'ready', message: `Claude Code CLI ${version ?? ''} answered in ${report.latency_ms} ms`.replace('  ', ' ') };
  return { ...found, status: 'not_ready', message: `Claude Code CLI is installed but a test call failed: ${report.error?.message ?? 'no answer'}`, step: 'Run `claude -p "hi"` in a terminal to see why, then check again.' };
}

export async function probeAnthropicApi(options: Pick<DetectOptions, 'anthropicApiKey' | 'anthropicBaseURL' | 'signal'>): Promise<Probe> {
  const step = 'Set ANTHROPIC_API_KEY before `npm run dev` (or type a key in Settings with the Anthropic API backend).';
  if (!options.anthropicApiKey) return { status: 'absent', message: 'No ANTHROPIC_API_KEY in the environment', step };
  try {
    const backend = new AnthropicBackend({ apiKey: options.anthropicApiKey, baseURL: options.anthropicBaseURL, timeoutMs: 10_000 });
    const models = await backend.listModels(options.signal ?? AbortSignal.timeout(10_000));
    return { status: 'ready', message: `ANTHROPIC_API_KEY works (${models.length} models)` };
  } catch (error) {
    return { status: 'not_ready', message: `ANTHROPIC_API_KEY is set but the API refused or could not be reached: ${errorText(error)}`, step };
  }
}

export async function probeLocalServer(name: LocalServerProbe['name'], endpoint: string, signal?: AbortSignal): Promise<LocalServerProbe> {
  const step =
    name === 'Ollama'
      ? 'Install Ollama, then `ollama pull qwen3:8b` (or any model) and keep `ollama serve` running.'
      : name === 'LM Studio'
        ? 'Start LM Studio, load a model and turn on its local server (Developer → Start Server, port 1234).'
        : `Start the server at ${endpoint}, or pick another backend in Settings.`;
  try {
    const listing = await new OpenAICompatibleBackend({ endpoint, timeoutMs: 3_000 }).listModels(signal ?? AbortSignal.timeout(3_000));
    const models = listing.map((model) => model.id);
    if (models.length === 0) return { name, endpoint, models, status: 'not_ready', message: `${name} answers at ${endpoint} but has no model`, step };
    return { name, endpoint, models, status: 'ready', message: `${name} at ${endpoint}: ${models.length} model${models.length === 1 ? '' : 's'}` };
  } catch {
    return { name, endpoint, models: [], status: 'absent', message: `Nothing answers at ${endpoint}`, step };
  }
}

/** All probes at once; none throws. */
export async function detectBackends(options: DetectOptions): Promise<BackendAvailability> {
  const [claude_cli, anthropic_api, ollama, lmStudio] = await Promise.all([
    probeClaudeCli(options),
    probeAnthropicApi(options),
    probeLocalServer('Ollama', options.ollamaEndpoint, options.signal),
    probeLocalServer('LM Studio', options.lmStudioEndpoint, options.signal),
  ]);
  const local_servers = [ollama, lmStudio];
  return {
    checked_at: new Date().toISOString(),
    claude_cli,
    anthropic_api,
    local_servers,
    usable: [claude_cli, anthropic_api, ...local_servers].some((probe) => probe.status === 'ready'),
  };
}
