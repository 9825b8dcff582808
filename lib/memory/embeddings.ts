// Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint (Ollama, LM Studio, vLLM,
// OpenAI), through the official SDK. The request says `encoding_format: "float"`: left to itself
// openai 6.x asks for base64 and decodes the answer, and a server that ignores the field and sends
// floats then yields zero vectors without an error. Every answer is checked: one vector per input,
// all of one length, finite numbers.
import type OpenAI from 'openai';
import { loadOpenAISdk, normaliseBaseURL } from '@/lib/backends/openai-compatible-backend';
import { createLocalEmbedder } from './local-embedder';
import { EmbeddingError, type Embedder } from './embedder';
import { readMemorySettings, type EmbeddingsConfig } from './memory-settings';
import { errorText } from '@/lib/errors/error-text';
import { processSlot } from '@/lib/process/process-state';

export { EmbeddingError, type Embedder } from './embedder';

/** Texts longer than this are cut before embedding (models have their own limits, commonly 512–8k tokens). */
const MAX_CHARS = 4_000;

export function createEmbedder(config: EmbeddingsConfig, options: { timeoutMs?: number } = {}): Embedder {
  const sdk = loadOpenAISdk();
  const client = sdk.then(
    (OpenAI) =>
      new OpenAI({
        baseURL: normaliseBaseURL(config.endpoint),
        apiKey: config.api_key || 'not-needed',
        timeout: options.timeoutMs ?? 30_000,
        maxRetries: 1,
      }),
  );
  client.catch(() => undefined);
  return {
    model: config.model,
    endpoint: config.endpoint,
    async embed(texts, signal, usage) {
      if (texts.length === 0) return [];
      let answer: OpenAI.Embeddings.CreateEmbeddingResponse;
      const OpenAI = await sdk;
      try {
        answer = await (await client).embeddings.create({ model: config.model, input: texts.map((text) => text.slice(0, MAX_CHARS) || ' '), encoding_format: 'float' }, { signal });
      } catch (error) {
        if (error instanceof OpenAI.APIError && !(error instanceof OpenAI.APIConnectionError)) throw new EmbeddingError(`The embeddings endpoint answered ${error.status ?? 'without a status'}: ${error.message}`);
        throw new EmbeddingError(`The embeddings endpoint could not be reached: ${errorText(error)}`);
      }
      const vectors = checkedVectors(answer, texts.length);
      if (typeof answer.usage?.prompt_tokens === 'number') usage?.(answer.usage.prompt_tokens);
      return vectors;
    },
  };
}

/** The answer's vectors in input order, normalised, or an error that says what was wrong. */
export function checkedVectors(answer: { data?: unknown }, expected: number): Float32Array[] {
  const data = Array.isArray(answer.data) ? (answer.data as { embedding?: unknown; index?: unknown }[]) : null;
  if (!data || data.length !== expected) throw new EmbeddingError(`The embeddings endpoint returned ${data?.length ?? 'no'} vectors for ${expected} texts`);
  const ordered = data.every((item) => typeof item.index === 'number') ? [...data].sort((a, b) => (a.index as number) - (b.index as number)) : data;
  let length = -1;
  return ordered.map((item, position) => {
    const values = item.embedding;
    if (typeof values === 'string') throw new EmbeddingError('The embeddings endpoint answered base64 although floats were asked for');
    if (!Array.isArray(values) || values.length === 0) throw new EmbeddingError(`Vector ${position} is empty`);
    if (!values.every((value) => typeof value === 'number' && Number.isFinite(value))) throw new EmbeddingError(`Vector ${position} holds a value that is not a number`);
    if (length !== -1 && values.length !== length) throw new EmbeddingError(`Vectors of different lengths (${length} and ${values.length})`);
    length = values.length;
    const vector = Float32Array.from(values as number[]);
    let norm = 0;
    for (const value of vector) norm += value * value;
    if (norm === 0) throw new EmbeddingError(`Vector ${position} is all zeros (a server that answers base64 or floats other than asked?)`);
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
    return vector;
  });
}

const configured = processSlot<{ key: string; embedder: Embedder } | null>('memory.embedder', () => null);

/** The embedder of Settings › Memory — an endpoint, else the built-in model when ticked — or null (recall is lexical). */
export async function configuredEmbedder(): Promise<Embedder | null> {
  const { embeddings, builtin_embedder: builtin } = await readMemorySettings();
  if (!embeddings) {
    if (!builtin) return null;
    if (configured.value?.key !== 'builtin') configured.value = { key: 'builtin', embedder: createLocalEmbedder() };
    return configured.value.embedder;
  }
  const key = JSON.stringify(embeddings);
  if (configured.value?.key !== key) configured.value = { key, embedder: createEmbedder(embeddings) };
  return configured.value.embedder;
}
