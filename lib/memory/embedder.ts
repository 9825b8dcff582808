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
  /** An endpoint that may charge for its calls (embedding-meter.ts reserves and records them); the built-in model does not. */
  readonly endpoint?: string;
  /** Unit-length vectors, one per text, in order; `usage` hears the input tokens the endpoint counted, when it says. */
  embed(texts: readonly string[], signal?: AbortSignal, usage?: (inputTokens: number) => void): Promise<Float32Array[]>;
}
