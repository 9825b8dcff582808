// Before any spec: both layers' default models point at the fake OpenAI-compatible server that
// playwright.config.ts starts, so every session's mind runs against the scripted mind.
import { expect, test as setup } from '@playwright/test';
import { fakeModels, fakeParams } from './support/fake-models';

setup('default models use the fake OpenAI-compatible server', async ({ request }) => {
  const response = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
  expect(response.status(), await response.text()).toBe(200);
});
