import { z } from 'zod';
import { consolidationConfigSchema, embeddingsConfigSchema } from '@/lib/memory/memory-settings';

/** `embeddings: null` turns hybrid recall off; an absent api_key keeps the stored one, "" removes it. */
export const putMemorySettingsBodySchema = z.object({ embeddings: embeddingsConfigSchema.nullable(), consolidation: consolidationConfigSchema }).strict();

export const testEmbeddingsBodySchema = z.object({ embeddings: embeddingsConfigSchema }).strict();
