// The per-layer model configuration that points at the e2e fake server (see playwright.config.ts).
export const fakeLlmEndpoint = `http://127.0.0.1:${process.env.E2E_FAKE_LLM_PORT ?? 3211}/v1`;

export function fakeModels() {
  return {
    c_model: { backend: 'openai_compatible', model: 'fake-large', max_tokens: 1024, endpoint: fakeLlmEndpoint },
    s_model: { backend: 'openai_compatible', model: 'fake-small', max_tokens: 512, endpoint: fakeLlmEndpoint },
  };
}

/** The parameters every spec starts from (adaptive pacing, the tag decides spontaneous speech). */
export const fakeParams = { summary_every_n: 10, pacing: 'adaptive', trigger_mode: 'tag', trigger_threshold: 200, spontaneous_cap: 3 };
