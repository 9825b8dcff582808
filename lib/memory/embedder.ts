// What recall needs of an embedder, whichever computes the vectors: an endpoint (embeddings.ts)
// or the model built into the app (local-embedder.ts). Its own file, so both can use it without
// importing each other.
export class EmbeddingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

export interface Embedder {
  readonly model: string;
  /** Unit-length vectors, one per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
