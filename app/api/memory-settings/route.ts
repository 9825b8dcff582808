import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { vectorCount } from '@/lib/memory/vector-index';
import { mergeEmbeddingsKey, publicMemorySettings, readMemorySettings, writeMemorySettings, type MemorySettings } from '@/lib/memory/memory-settings';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { putMemorySettingsBodySchema } from './schema';

export const dynamic = 'force-dynamic';

async function settingsJson(settings: MemorySettings) {
  return { settings: publicMemorySettings(settings), indexer: { ...getOrchestrator().vectors.status(), vectors: await vectorCount() } };
}

export const GET = handle(async () => Response.json(await settingsJson(await readMemorySettings())));

export const PUT = handle(async (request) => {
  const body = await readJsonBody(request, putMemorySettingsBodySchema);
  const stored = await readMemorySettings();
  const settings: MemorySettings = { embeddings: mergeEmbeddingsKey(body.embeddings, stored.embeddings), builtin_embedder: Boolean(body.builtin_embedder), consolidation: body.consolidation };
  await writeMemorySettings(settings);
  getOrchestrator().vectors.start(); // a new endpoint is used by the next round (a few seconds)
  return Response.json(await settingsJson(settings));
});
