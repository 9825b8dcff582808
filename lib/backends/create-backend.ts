// From a layer's configuration (the seed's keys) to the adapter that serves it.
import type { LayerModelConfig } from '@/lib/config/model-config';
import { AnthropicBackend } from './anthropic-backend';
import { ClaudeCodeCliBackend } from './claude-code-cli-backend';
import type { ModelBackend } from './model-backend';
import { OpenAICompatibleBackend } from './openai-compatible-backend';

export function createBackend(config: LayerModelConfig): ModelBackend {
  switch (config.backend) {
    case 'anthropic':
      return new AnthropicBackend({ apiKey: config.api_key, baseURL: config.endpoint });
    case 'openai_compatible':
      return new OpenAICompatibleBackend({ endpoint: config.endpoint ?? 'http://localhost:11434/v1', apiKey: config.api_key });
    case 'claude_code_cli':
      return new ClaudeCodeCliBackend({ cliPath: config.cli_path });
  }
}
