import { z } from 'zod';
import { consolidationConfigSchema, embeddingsConfigSchema } from '@/lib/memory/memory-settings';

/**
 * `embeddings: null` and no `builtin_embedder` turns recall by meaning off; an absent api_key keeps
 * the stored one, "" removes it. An endpoint, when set, is used rather than the built-in model.
 */
export const putMemorySettingsBodySchema = z.object({ embeddings: embeddingsConfigSchema.nullable(), builtin_embedder: z.boolean().optional(), consolidation: consolidationConfigSchema }).strict();

/** An endpoint to try, or the built-in model (its first load takes a second or two). */
export const testEmbeddingsBodySchema = z.union([z.object({ embeddings: embeddingsConfigSchema }).strict(), z.object({ builtin: z.literal(true) }).strict()]);
