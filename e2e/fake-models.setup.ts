// Before any spec: both layers' default models point at the fake OpenAI-compatible server that
// playwright.config.ts starts, so every session's mind runs against the scripted mind.
import { expect, test as setup } from '@playwright/test';
import { fakeModels } from './support/fake-models';

setup('default models use the fake OpenAI-compatible server', async ({ request }) => {
  const response = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
  expect(response.status(), await response.text()).toBe(200);
});

const fakeParams = { summary_every_n: 10, pacing: 'adaptive', trigger_mode: 'tag', trigger_threshold: 200, spontaneous_cap: 3 };
