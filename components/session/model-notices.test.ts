import { describe, expect, it } from 'vitest';
import type { PublicLayerModelConfig } from '@/lib/config/model-config';
import { modelNotices } from './model-notices';

const layer = (backend: PublicLayerModelConfig['backend'], model: string): PublicLayerModelConfig => ({ backend, model, max_tokens: 100, api_key_set: false });
const now = new Date('2026-11-23T12:00:00Z');

describe('modelNotices', () => {
  it('nothing for current models and aliases', () => {
    expect(modelNotices({ models: { c_model: layer('claude_code_cli', 'sonnet'), s_model: layer('anthropic', 'claude-haiku-5-5') }, now })).toEqual([]);
  });

  it('a deprecated model: its end of life and the switch to the current one of its line', () => {
    const notices = modelNotices({ models: { c_model: layer('anthropic', 'claude-sonnet-4-5-20250929'), s_model: layer('claude_code_cli', 'claude-sonnet-4-5') }, now });
    expect(notices).toEqual([
      { layer: 'c_model', model: 'claude-sonnet-4-5-20250929', message: 'Internal Dialog: claude-sonnet-4-5-20250929 is deprecated and reaches its end of life on 2026-11-30', replacement: 'claude-sonnet-5-5' },
      { layer: 's_model', model: 'claude-sonnet-4-5', message: 'Subconscious: claude-sonnet-4-5 is deprecated and reaches its end of life on 2026-11-30', replacement: 'sonnet' },
    ]);
    expect(modelNotices({ models: { c_model: layer('anthropic', 'claude-sonnet-4-5'), s_model: layer('claude_code_cli', 'haiku') }, now: new Date('2026-12-02T00:00:00Z') })[0]!.message).toMatch(/reached its end of life on 2026-11-30/);
  });

  it('a model the server refused: the provider\'s words; a local server gets no guessed replacement', () => {
    const notices = modelNotices({
      models: { c_model: layer('openai_compatible', 'llama9'), s_model: layer('claude_code_cli', 'haiku') },
      lastError: { layer: 'internal', kind: 'model_not_found', message: 'model "llama9" not found, try pulling it first' },
      now,
    });
    expect(notices).toEqual([{ layer: 'c_model', model: 'llama9', message: 'Internal Dialog: the server does not serve llama9 — "model "llama9" not found, try pulling it first"' }]);
    const api = modelNotices({ models: { c_model: layer('anthropic', 'claude-3-opus-20240229'), s_model: layer('anthropic', 'claude-haiku-5-5') }, lastError: { layer: 'internal', kind: 'model_not_found', message: 'model: claude-3-opus-20240229' }, now });
    expect(api[0]).toMatchObject({ replacement: 'claude-sonnet-5-5' });
  });
});
