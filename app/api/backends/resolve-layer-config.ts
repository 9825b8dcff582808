// The layer config a backends route acts on: the submitted one, with the stored key borrowed
// when the browser asks for it (it never has the key itself).
import type { z } from 'zod';
import { mergeLayerConfig, type LayerModelConfig } from '@/lib/config/model-config';
import { readSettings } from '@/lib/store/settings-repository';
import type { testBackendBodySchema } from './test/schema';

export async function resolveLayerConfig(body: z.infer<typeof testBackendBodySchema>): Promise<LayerModelConfig> {
  const stored = body.use_stored_key_of ? (await readSettings()).models[body.use_stored_key_of] : undefined;
  return mergeLayerConfig(body.config, stored);
}
