// Memory settings (Settings › Memory): the optional embeddings endpoint that makes recall hybrid,
// and the caps on the Subconscious's consolidation while the user is away. One JSON row under
// `memory`; the embeddings key is write-only like the layers' keys.
import { z } from 'zod';
import { appPaths } from '@/lib/config/env';
import { readJsonSetting, writeJsonSetting } from '@/lib/store/settings-repository';
import { processSlot } from '@/lib/process/process-state';

export const embeddingsConfigSchema = z
  .object({
    /** An OpenAI-compatible base URL: Ollama's http://127.0.0.1:11434/v1, LM Studio, vLLM, OpenAI. */
    endpoint: z.string().url().max(500),
    model: z.string().min(1).max(200),
    api_key: z.string().max(500).optional(),
  })
  .strict();
export type EmbeddingsConfig = z.infer<typeof embeddingsConfigSchema>;

export const consolidationConfigSchema = z
  .object({
    enabled: z.boolean(),
    /** Model calls per hour across every session. */
    calls_per_hour: z.number().int().min(0).max(120),
    /** Spend per hour across every session (calls of a model without a known price count by the call cap only). */
    usd_per_hour: z.number().min(0).max(100),
    /** New conversation messages a consolidation waits for. */
    min_new_messages: z.number().int().min(1).max(1000),
  })
  .strict();
export type ConsolidationConfig = z.infer<typeof consolidationConfigSchema>;

export const memorySettingsSchema = z
  .object({
    embeddings: embeddingsConfigSchema.nullable(),
    /** Recall by meaning with the model inside the app (local-embedder.ts) while no endpoint is set. Off by default (docs/memory.md says why). */
    builtin_embedder: z.boolean().optional(),
    consolidation: consolidationConfigSchema,
  })
  .strict();
export type MemorySettings = z.infer<typeof memorySettingsSchema>;

export const defaultMemorySettings: MemorySettings = {
  embeddings: null,
  consolidation: { enabled: true, calls_per_hour: 6, usd_per_hour: 0.05, min_new_messages: 4 },
};

/**
 * Read on every recall: kept per database file until written again. In the process state, because Next
 * bundles the routes apart from server.ts: a module-level cache would leave the orchestrator's
 * indexer with the settings of its start.
 */
const settingsSlot = processSlot<{ file: string; settings: MemorySettings } | null | undefined>('memory.memory-settings', () => undefined);

export async function readMemorySettings(): Promise<MemorySettings> {
  const file = appPaths().databaseFile;
  const cached = settingsSlot.value;
  if (cached?.file === file) return cached.settings;
  const settings = await readJsonSetting('memory', memorySettingsSchema, 'memory settings', defaultMemorySettings);
  settingsSlot.value = { file, settings };
  return settings;
}

export async function writeMemorySettings(settings: MemorySettings): Promise<void> {
  await writeJsonSetting('memory', settings);
  settingsSlot.value = { file: appPaths().databaseFile, settings };
}

/** What a browser sees: the key replaced by whether one is set and its last four characters. */
export function publicMemorySettings(settings: MemorySettings) {
  const embeddings = settings.embeddings && {
    endpoint: settings.embeddings.endpoint,
    model: settings.embeddings.model,
    api_key_set: Boolean(settings.embeddings.api_key),
    ...(settings.embeddings.api_key ? { api_key_hint: `…${settings.embeddings.api_key.slice(-4)}` } : {}),
  };
  return { embeddings, builtin_embedder: Boolean(settings.builtin_embedder), consolidation: settings.consolidation };
}

/** A missing key keeps the stored one (for the same endpoint), an empty string removes it. */
export function mergeEmbeddingsKey(submitted: EmbeddingsConfig | null, stored: EmbeddingsConfig | null): EmbeddingsConfig | null {
  if (!submitted) return null;
  if (submitted.api_key === '') {
    const { api_key: _removed, ...rest } = submitted;
    return rest;
  }
  if (submitted.api_key === undefined && stored?.api_key && stored.endpoint === submitted.endpoint) return { ...submitted, api_key: stored.api_key };
  return submitted;
}
