// Runs the fake OpenAI-compatible server with the scripted mind (and its task flows) as a process of its own (for the
// end-to-end run and manual trials): `tsx test/fakes/run-fake-openai-server.ts [port]`.
import { startFakeOpenAIServer } from './fake-openai-server';
import { crewScript, crewStepOf } from './crew-script';
import type { FakeRequest } from './fake-server-core';
import { taskScript } from './task-script';

const port = Number(process.argv[2] ?? process.env.FAKE_LLM_PORT ?? 3211);
const chunkDelayMs = Number(process.env.FAKE_LLM_CHUNK_DELAY_MS ?? 15);
// A long run (the soak benchmark: ~150 requests/s) must not keep every prompt it was sent.
// The crew's flows (its lead's first task, [[research]], the specialists' goals) go to the crew's script.
const crewGoal = /release note|\[\[research\]\]|^Goal: (Review|Research)/;
const script = (request: FakeRequest) => (crewGoal.test(crewStepOf(request)?.task ?? '') ? crewScript(request) : taskScript(request));
const server = await startFakeOpenAIServer({ port, script, chunkDelayMs, models: ['fake-large', 'fake-small'], requestLogLimit: 100 });
console.log(`> fake OpenAI-compatible server on ${server.url}/v1`);
const close = () => void server.close().then(() => process.exit(0));
process.on('SIGINT', close);
process.on('SIGTERM', close);
