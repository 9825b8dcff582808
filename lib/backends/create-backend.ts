// From a layer's configuration (the seed's keys) to the adapter that serves it.
import type { LayerModelConfig } from '@/lib/config/model-config';
import { AnthropicBackend } from './anthropic-backend';
import { ClaudeCodeCliBackend } from './claude-code-cli-backend';
import type { ModelBackend } from './model-backend';
import { OpenAICompatibleBackend } from './openai-compatible-backend';
import { processSlot } from '@/lib/process/process-state';

/**
 * Adapters hold nothing but their configuration and an SDK client, so one per configuration is
 * reused: its HTTP connections stay open between calls (a tool step makes several in a row).
 */
const reused = processSlot('backends.reused', () => new Map<string, ModelBackend>()).value;
const maxReused = 64;

export function createBackend(config: LayerModelConfig): ModelBackend {
  const key = JSON.stringify(config);
  const known = reused.get(key);
  if (known) return known;
  const backend = newBackend(config);
  if (reused.size >= maxReused) reused.delete(reused.keys().next().value as string);
  reused.set(key, backend);
  return backend;
}

function newBackend(config: LayerModelConfig): ModelBackend {
  switch (config.backend) {
    case 'anthropic':
      return new AnthropicBackend({ apiKey: config.api_key, baseURL: config.endpoint });
    case 'openai_compatible':
      return new OpenAICompatibleBackend({ endpoint: config.endpoint ?? 'http://localhost:11434/v1', apiKey: config.api_key });
    case 'claude_code_cli':
      return new ClaudeCodeCliBackend({ cliPath: config.cli_path });
  }
}
