// Which models see images (issue 33): every Claude model, the vision lines of local servers; the
// text-only lines are known; an unknown model is tried; a refusal that names images is learnt.
import { describe, expect, it } from 'vitest';
import { imageSight, isImageRefusal, learnBlind } from './image-sight';

const local = (model: string) => ({ backend: 'openai_compatible' as const, model, endpoint: 'http://localhost:11434/v1' });

describe('image sight', () => {
  it('knows the seeing and the blind by name; an unknown model is tried', () => {
    expect(imageSight({ backend: 'claude_code_cli', model: 'claude-sonnet-4-5' })).toEqual({ provider: 'anthropic' });
    expect(imageSight({ backend: 'anthropic', model: 'claude-haiku-4-5' })).toEqual({ provider: 'anthropic' });
    for (const model of ['qwen2.5vl:7b', 'qwen3-vl:8b', 'llava:13b', 'llama3.2-vision:11b', 'gemma3:12b', 'minicpm-v', 'library/moondream', 'gpt-4o-mini']) {
      expect([model, imageSight(local(model))]).toEqual([model, { provider: 'openai_compatible' }]);
    }
    for (const model of ['gpt-oss:20b', 'qwen3:8b', 'qwen2.5:7b', 'llama3.1:8b', 'llama3.2:3b', 'deepseek-r1:14b', 'mixtral:8x7b']) {
      expect([model, imageSight(local(model))]).toEqual([model, { reason: `${model} does not take images` }]);
    }
    expect(imageSight(local('mystery-13b'))).toEqual({ provider: 'openai_compatible' });
  });

  it('a refusal naming images is learnt for that model on that server', () => {
    expect(isImageRefusal('this model does not support image input')).toBe(true);
    expect(isImageRefusal('Invalid content type: image_url is only supported by certain models')).toBe(true);
    expect(isImageRefusal('rate limited, try again')).toBe(false);
    learnBlind(local('mystery-30b'));
    expect(imageSight(local('mystery-30b'))).toEqual({ reason: 'mystery-30b refused images earlier' });
    expect(imageSight({ ...local('mystery-30b'), endpoint: 'http://other:8000/v1' })).toEqual({ provider: 'openai_compatible' });
  });
});
