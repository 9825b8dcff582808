// A layer's fallbacks (issue 78 §2) in its configuration: validated like the layer, never shown with
// their keys, and a stored key kept only for the same backend and endpoint at the same place.
import { describe, expect, it } from 'vitest';
import { layerModelConfigSchema, mergeLayerConfig, toPublicLayerConfig, type LayerModelConfig } from './model-config';
import { safeImportedModels } from '@/lib/http/session-import';

const stored: LayerModelConfig = {
  backend: 'openai_compatible',
  model: 'llama3.2',
  max_tokens: 1024,
  endpoint: 'http://localhost:11434/v1',
  api_key: 'sk-first-0001',
  fallbacks: [
    { backend: 'anthropic', model: 'claude-sonnet-5-5', max_tokens: 2048, api_key: 'sk-ant-second-0002' },
    { backend: 'openai_compatible', model: 'qwen3', max_tokens: 1024, endpoint: 'http://localhost:1234/v1', api_key: 'sk-third-0003' },
  ],
};

describe('fallbacks in a layer’s configuration', () => {
  it('are validated like a layer: at most three, each complete, none of their own', () => {
    expect(layerModelConfigSchema.safeParse(stored).success).toBe(true);
    const four = { ...stored, fallbacks: [...stored.fallbacks!, ...stored.fallbacks!] };
    expect(layerModelConfigSchema.safeParse(four).error?.issues[0]?.message).toBe('at most 3 fallbacks');
    expect(layerModelConfigSchema.safeParse({ ...stored, fallbacks: [{ backend: 'openai_compatible', model: 'x', max_tokens: 10 }] }).error?.issues[0]?.path).toEqual(['fallbacks', 0, 'endpoint']);
    expect(layerModelConfigSchema.safeParse({ ...stored, fallbacks: [{ ...stored.fallbacks![0], fallbacks: [] }] }).success).toBe(false);
  });

  it('are shown without their keys, each with a hint', () => {
    const shown = toPublicLayerConfig(stored);
    expect(JSON.stringify(shown)).not.toMatch(/sk-(first|ant-second|third)/);
    expect(shown.fallbacks).toEqual([
      { backend: 'anthropic', model: 'claude-sonnet-5-5', max_tokens: 2048, api_key_set: true, api_key_hint: '…0002' },
      { backend: 'openai_compatible', model: 'qwen3', max_tokens: 1024, endpoint: 'http://localhost:1234/v1', api_key_set: true, api_key_hint: '…0003' },
    ]);
  });

  it('keep a stored key at the same place for the same backend and endpoint only; absent keeps them, none clears them', () => {
    const { api_key: _first, fallbacks, ...first } = stored;
    const submitted = { ...first, fallbacks: fallbacks!.map(({ api_key: _key, ...fallback }) => fallback) };
    expect(mergeLayerConfig(submitted, stored)).toEqual(stored);
    // The third fallback moved to another server: its key does not follow it.
    const moved = mergeLayerConfig({ ...submitted, fallbacks: [submitted.fallbacks[0]!, { ...submitted.fallbacks[1]!, endpoint: 'http://attacker.example/v1' }] }, stored);
    expect(moved.fallbacks?.[0]?.api_key).toBe('sk-ant-second-0002');
    expect(moved.fallbacks?.[1]?.api_key).toBeUndefined();
    expect(mergeLayerConfig(first, stored).fallbacks).toEqual(stored.fallbacks);
    expect(mergeLayerConfig({ ...first, fallbacks: [] }, stored).fallbacks).toBeUndefined();
  });

  it('from an imported file: one pointing off this machine is left out, a CLI path is never the file’s', () => {
    const file: LayerModelConfig = {
      backend: 'openai_compatible',
      model: 'llama3.2',
      max_tokens: 1024,
      endpoint: 'http://127.0.0.1:11434/v1',
      fallbacks: [
        { backend: 'anthropic', model: 'claude-sonnet-5-5', max_tokens: 1024, endpoint: 'https://collector.example' },
        { backend: 'claude_code_cli', model: 'sonnet', max_tokens: 1024, cli_path: '/tmp/evil' },
      ],
    };
    const defaults = { c_model: { backend: 'claude_code_cli' as const, model: 'sonnet', max_tokens: 4096, cli_path: 'claude' }, s_model: { backend: 'claude_code_cli' as const, model: 'haiku', max_tokens: 2048, cli_path: 'claude' } };
    const { models, notes } = safeImportedModels({ c_model: file, s_model: defaults.s_model }, defaults);
    expect(models.c_model.fallbacks).toEqual([{ backend: 'claude_code_cli', model: 'sonnet', max_tokens: 1024, cli_path: 'claude' }]);
    expect(notes).toEqual([expect.stringContaining('collector.example, not on this machine; it is left out')]);
  });
});
