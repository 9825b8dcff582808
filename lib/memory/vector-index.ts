// Vectors for hybrid recall (ARCHITECTURE §12), in SQLite beside the items they stand for
// (`memory_vectors`, deleted with them by triggers). Items are embedded in the background, never on
// the reply path; a recall embeds only its query. Search is exact: a dot product over the persona's
// unit vectors, held in memory per persona and model and rebuilt after any change.
import { getDb } from '@/lib/store/db';
import { sqlRows, sqlRun } from '@/lib/store/sql';
import type { Embedder } from './embeddings';
import { meteredEmbedder } from './embedding-meter';
import { processSlot } from '@/lib/process/process-state';

export type VectorItemKind = 'memory' | 'message';

interface PersonaMatrix {
  dims: number;
  kinds: VectorItemKind[];
  ids: number[];
  matrix: Float32Array;
  /** `kind:id` → row, made on first use. */
  rowOf?: Map<string, number>;
}

// In the process state: a memory forgotten through a route (its own bundle) must leave the orchestrator's copy too.
const matricesSlot = processSlot<Map<string, PersonaMatrix> | undefined>('memory.vector-matrices', () => undefined);
const matrices = (matricesSlot.value ??= new Map<string, PersonaMatrix>());

/** Every cached matrix is dropped (a vector was added or an item forgotten). */
export function forgetVectorCache(): void {
  matrices.clear();
}

function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function fromBlob(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}

interface PendingRow {
  kind: VectorItemKind;
  id: number;
  persona_name: string;
  content: string;
}

/**
 * Embeds the conversation messages and live memories that have no vector for this model yet,
 * newest first, `batch` texts per request, at most `limit` in all. Returns how many were added.
 */
export async function indexPending(embedder: Embedder, options: { batch?: number; limit?: number; signal?: AbortSignal } = {}): Promise<number> {
  const batch = options.batch ?? 32;
  const pending = `SELECT * FROM (
       SELECT 'memory' AS kind, m.id, m.persona_name, m.content FROM memories m
        WHERE m.valid_to IS NULL AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.item_kind = 'memory' AND v.item_id = m.id AND v.model = ?)
       UNION ALL
       SELECT 'message' AS kind, m.id, s.persona_name, m.content FROM messages m JOIN sessions s ON s.id = m.session_id
        WHERE m.tag IN ('ED_user', 'ED_agent') AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.item_kind = 'message' AND v.item_id = m.id AND v.model = ?)
     ) AS pending ORDER BY kind = 'memory' DESC, id DESC LIMIT ?`;
  // Only while its item exists: one deleted while its vector was computed would be outlived by it.
  const insert = (table: 'memories' | 'messages') => `INSERT INTO memory_vectors (item_kind, item_id, persona_name, model, dims, vector)
     SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM ${table} WHERE id = ?)
     ON CONFLICT (item_kind, item_id, model) DO UPDATE SET persona_name = excluded.persona_name, dims = excluded.dims, vector = excluded.vector`;
  let added = 0;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  while (added < limit && !options.signal?.aborted) {
    const rows = await sqlRows<PendingRow>(pending, [embedder.model, embedder.model, Math.min(batch, limit - added)]);
    if (rows.length === 0) break;
    // Paid by the app's and these personas' allowances (embedding-meter.ts); refused, the round stops here.
    const vectors = await meteredEmbedder(embedder, { personaNames: rows.map((row) => row.persona_name) }).embed(
      rows.map((row) => row.content),
      options.signal,
    );
    for (const [index, row] of rows.entries()) {
      const vector = vectors[index]!;
      await sqlRun(insert(row.kind === 'memory' ? 'memories' : 'messages'), [row.kind, row.id, row.persona_name, embedder.model, vector.length, toBlob(vector), row.id]);
    }
    added += rows.length;
    forgetVectorCache();
  }
  return added;
}

async function matrixFor(personaName: string, model: string): Promise<PersonaMatrix | null> {
  const key = `${personaName}\u0000${model}`;
  const cached = matrices.get(key);
  if (cached) return cached;
  const rows = await (await getDb()).memoryVector.findMany({ where: { personaName, model }, select: { itemKind: true, itemId: true, dims: true, vector: true } });
  if (rows.length === 0) return null;
  // One length per model; rows of another length (the server's model changed) are left out.
  const dims = rows[rows.length - 1]!.dims;
  const kept = rows.filter((row) => row.dims === dims);
  const matrix = new Float32Array(kept.length * dims);
  kept.forEach((row, index) => matrix.set(fromBlob(row.vector), index * dims));
  const built = { dims, kinds: kept.map((row) => row.itemKind as VectorItemKind), ids: kept.map((row) => row.itemId), matrix };
  matrices.set(key, built);
  return built;
}

/** The persona's items nearest to the query vector, best first (cosine similarity). */
export async function nearestItems(personaName: string, model: string, query: Float32Array, limit: number): Promise<{ kind: VectorItemKind; id: number; similarity: number }[]> {
  const found = await matrixFor(personaName, model);
  if (!found || found.dims !== query.length) return [];
  const { dims, matrix } = found;
  const scored: { index: number; similarity: number }[] = [];
  for (let row = 0; row < found.ids.length; row++) {
    let dot = 0;
    const offset = row * dims;
    for (let i = 0; i < dims; i++) dot += matrix[offset + i]! * query[i]!;
    scored.push({ index: row, similarity: dot });
  }
  scored.sort((a, b) => b.similarity - a.similarity);
  return scored.slice(0, limit).map(({ index, similarity }) => ({ kind: found.kinds[index]!, id: found.ids[index]!, similarity }));
}

/**
 * The query's similarity to each of these items (their stored vectors), `kind:id` → cosine; an item
 * not embedded yet is absent. For the lexical candidates of a hybrid recall (recall.ts).
 */
export async function similaritiesTo(personaName: string, model: string, query: Float32Array, items: readonly { kind: VectorItemKind; id: number }[]): Promise<Map<string, number>> {
  const found = await matrixFor(personaName, model);
  const result = new Map<string, number>();
  if (!found || found.dims !== query.length) return result;
  const { dims, matrix } = found;
  found.rowOf ??= new Map(found.ids.map((id, row) => [`${found.kinds[row]}:${id}`, row]));
  for (const item of items) {
    const key = `${item.kind}:${item.id}`;
    const row = found.rowOf.get(key);
    if (row === undefined) continue;
    let dot = 0;
    const offset = row * dims;
    for (let i = 0; i < dims; i++) dot += matrix[offset + i]! * query[i]!;
    result.set(key, dot);
  }
  return result;
}

export async function vectorCount(): Promise<number> {
  return (await getDb()).memoryVector.count();
}
