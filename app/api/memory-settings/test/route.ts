import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { createEmbedder } from '@/lib/memory/embeddings';
import { createLocalEmbedder } from '@/lib/memory/local-embedder';
import { mergeEmbeddingsKey, readMemorySettings } from '@/lib/memory/memory-settings';
import { testEmbeddingsBodySchema } from '../schema';
import { errorText } from '@/lib/errors/error-text';

export const dynamic = 'force-dynamic';

/** Embeds two words with the given endpoint (the stored key when none is typed) or the built-in model: ok and the vector length, or why not. */
export const POST = handle(async (request) => {
  const body = await readJsonBody(request, testEmbeddingsBodySchema);
  try {
    const embedder = 'builtin' in body ? createLocalEmbedder() : createEmbedder(mergeEmbeddingsKey(body.embeddings, (await readMemorySettings()).embeddings)!, { timeoutMs: 15_000 });
    const [vector] = await embedder.embed(['hello world']);
    return Response.json({ ok: true, dims: vector!.length });
  } catch (error) {
    return Response.json({ ok: false, error: errorText(error) });
  }
});
