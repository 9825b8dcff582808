// The fake Anthropic and OpenAI-compatible servers playing the scripted mind, one orchestrator,
// its events recorded, and a layer config per API backend: what the tool-flow suites share.
import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@/test/fakes/fake-anthropic-server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { EventRecorder } from './event-recorder';
import type { TempAppDirs } from './temp-app-dirs';

export interface ApiBackendsHarness {
  anthropic: FakeAnthropicServer;
  openai: FakeOpenAIServer;
  orchestrator: Orchestrator;
  events: EventRecorder;
  /** The layer config for a backend name (`anthropic` | `openai_compatible`). */
  layer(backend: string): LayerModelConfig;
}

export const apiBackendNames = ['anthropic', 'openai_compatible'] as const;

/** Started before the suite's tests (after `ready`), stopped after them. */
export function useApiBackendsHarness(dirs: TempAppDirs, ready?: (harness: ApiBackendsHarness) => Promise<void>): ApiBackendsHarness {
  const harness = {} as ApiBackendsHarness;
  beforeAll(async () => {
    fs.chmodSync(dirs.root, 0o755); // the sandbox's user must reach the workspaces
    harness.anthropic = await startFakeAnthropicServer({ script: mindScript });
    harness.openai = await startFakeOpenAIServer({ script: mindScript });
    harness.orchestrator = new Orchestrator();
    harness.events = new EventRecorder(harness.orchestrator.bus);
    harness.layer = (backend) =>
      backend === 'anthropic'
        ? { backend: 'anthropic', model: 'claude-sonnet-5-5', max_tokens: 512, endpoint: harness.anthropic.url, api_key: 'sk-ant-test-key' }
        : { backend: 'openai_compatible', model: 'fake-large', max_tokens: 512, endpoint: `${harness.openai.url}/v1` };
    await harness.orchestrator.start();
    await ready?.(harness);
  });
  afterAll(async () => {
    harness.events.close();
    await harness.orchestrator.stop();
    await harness.anthropic.close();
    await harness.openai.close();
  });
  return harness;
}
