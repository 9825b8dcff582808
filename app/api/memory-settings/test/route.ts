import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { createEmbedder } from '@/lib/memory/embeddings';
import { mergeEmbeddingsKey, readMemorySettings } from '@/lib/memory/memory-settings';
import { testEmbeddingsBodySchema } from '../schema';

export const dynamic = 'force-dynamic';

/** Embeds two words with the given endpoint (the stored key when none is typed): ok and the vector length, or why not. */
export const POST = handle(async (request) => {
  const body = await readJsonBody(request, testEmbeddingsBodySchema);
  const config = mergeEmbeddingsKey(body.embeddings, (await readMemorySettings()).embeddings)!;
  try {
    const [vector] = await createEmbedder(config, { timeoutMs: 15_000 }).embed(['hello world']);
    return Response.json({ ok: true, dims: vector!.length });
  } catch (error) {
    return Response.json({ ok: false, error: (error as Error).message });
  }
});
