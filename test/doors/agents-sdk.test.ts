// OpenAI's Agents SDK (`@openai/agents`, pinned; Responses by default) running an agent against the
// Responses door (issue 78 §1): the persona is the agent's model, with a key; a function tool the
// client defines is offered to the mind, called by it, run by the SDK on the client's side, and its
// output answered by the same turn. Tracing to OpenAI is off (the machine reaches loopback only).
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import type { FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { newKey, startMindAndDoors, type startDoorServer } from './door-server';

useTempAppDirs({ personas: { iris: '# Iris\nWarm and brief.\n' } });
let model: FakeOpenAIServer;
let door: Awaited<ReturnType<typeof startDoorServer>>;
let runner: Runner;

beforeAll(async () => {
  ({ model, door } = await startMindAndDoors());
  setTracingDisabled(true);
  runner = new Runner({ modelProvider: new OpenAIProvider({ apiKey: await newKey('agents', ['iris']), baseURL: `${door.base}/v1`, useResponses: true }) });
}, 60_000);

afterAll(async () => {
  await door?.close();
  await stopOrchestrator();
  await model?.close();
});

describe('the Agents SDK through the Responses door', () => {
  it('runs an agent on a persona: a plain answer, and a function tool the SDK runs on its side', async () => {
    const plain = await runner.run(new Agent({ name: 'Iris', model: 'persona/iris', instructions: 'Be brief.' }), 'Hello from an agent');
    expect(plain.finalOutput).toBe('You said: Hello from an agent');

    const asked: string[] = [];
    const getWeather = tool({
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        asked.push(city);
        return `Rain in ${city}`;
      },
    });
    const agent = new Agent({ name: 'Iris with weather', model: 'persona/iris', tools: [getWeather] });
    const result = await runner.run(agent, 'Should I take an umbrella? [[client get_weather {"city":"Lisbon"}]]');
    expect(asked).toEqual(['Lisbon']); // run by the SDK, once
    expect(result.finalOutput).toBe('Here is what the tools said: Rain in Lisbon');
    const calls = await (await getDb()).toolCall.findMany({ where: { name: 'client__get_weather' } });
    expect(calls.map((call) => [call.status, call.result])).toEqual([['succeeded', 'Rain in Lisbon']]);
  }, 60_000);
});
