// The app's view of what can answer: detection (lib/backends/detect-backends.ts) run at start-up
// and on demand, one check at a time, its result kept for the home page. It also says whether the
// default models in Settings can answer, since that is what a new session will use.
import { detectBackends, probeAnthropicApi, probeLocalServer, type BackendAvailability, type Probe } from '@/lib/backends/detect-backends';
import { environmentAnthropicKey } from '@/lib/config/key-scope';
import { readEnv } from '@/lib/config/env';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { readSettings } from '@/lib/store/settings-repository';
import { processSlot } from '@/lib/process/process-state';

export interface AvailabilityReport extends BackendAvailability {
  /** Whether the default models (Settings) can answer: what a new session will use. */
  defaults: Probe & { backend: LayerModelConfig['backend']; model: string };
}

const availabilitySlot = processSlot<{ last?: AvailabilityReport; running?: Promise<AvailabilityReport> } | undefined>('setup.availability', () => undefined);
const state = (availabilitySlot.value ??= {});

async function defaultsProbe(availability: BackendAvailability, layer: LayerModelConfig): Promise<Probe> {
  switch (layer.backend) {
    case 'claude_code_cli':
      return availability.claude_cli;
    case 'anthropic':
      return layer.api_key || layer.endpoint ? probeAnthropicApi({ anthropicApiKey: layer.api_key ?? environmentAnthropicKey(layer.endpoint), anthropicBaseURL: layer.endpoint }) : availability.anthropic_api;
    case 'openai_compatible': {
      const server = await probeLocalServer('The server in Settings', layer.endpoint ?? readEnv().AGENTCSD_OLLAMA_URL);
      if (server.status === 'ready' && !server.models.includes(layer.model)) {
        return { status: 'not_ready', message: `${server.endpoint} does not list ${layer.model} (it has ${server.models.slice(0, 5).join(', ')})`, step: 'Pick one of its models in Settings.' };
      }
      return server;
    }
  }
}

async function run(): Promise<AvailabilityReport> {
  const { models } = await readSettings();
  const env = readEnv();
  const cliLayer = [models.c_model, models.s_model].find((layer) => layer.backend === 'claude_code_cli');
  const availability = await detectBackends({
    cliPath: cliLayer?.cli_path ?? 'claude',
    env: process.env,
    anthropicApiKey: env.ANTHROPIC_API_KEY || undefined,
    ollamaEndpoint: env.AGENTCSD_OLLAMA_URL,
    lmStudioEndpoint: env.AGENTCSD_LMSTUDIO_URL,
  });
  const defaults = { ...(await defaultsProbe(availability, models.c_model)), backend: models.c_model.backend, model: models.c_model.model };
  return { ...availability, defaults, usable: availability.usable || defaults.status === 'ready' };
}

/** The latest result; runs a check when there is none (or `force`), never two at once. */
export function checkBackends(options: { force?: boolean } = {}): Promise<AvailabilityReport> {
  if (state.running) return state.running;
  if (state.last && !options.force) return Promise.resolve(state.last);
  state.running = run()
    .then((report) => (state.last = report))
    .finally(() => (state.running = undefined));
  return state.running;
}

/** Settings changed: the defaults' status must be checked again before it is shown. */
export function forgetAvailability(): void {
  state.last = undefined;
}

/** One line for the terminal: each option and whether it can answer. */
export function describeAvailability(report: AvailabilityReport): string {
  const mark = (probe: Probe) => (probe.status === 'ready' ? 'ready' : probe.status === 'absent' ? 'not found' : 'not ready');
  const parts = [
    `Claude Code CLI ${mark(report.claude_cli)}`,
    `Anthropic API ${mark(report.anthropic_api)}`,
    ...report.local_servers.map((server) => `${server.name} ${server.status === 'ready' ? `${server.models.length} models` : mark(server)}`),
  ];
  const defaults = `defaults (${report.defaults.backend} · ${report.defaults.model}) ${mark(report.defaults)}`;
  return `${parts.join(' · ')} — ${defaults}${report.usable ? '' : ': nothing can answer yet, open the home page for the steps'}`;
}
