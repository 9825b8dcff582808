import { validationError } from '@/lib/http/api-error';
import { handle, parseSearchParams } from '@/lib/http/route-helpers';
import { recall } from '@/lib/memory/recall';
import { recallQuerySchema } from '@/app/api/memories/schema';
import { wordsHiddenFromOwner } from '@/lib/people/web-reach';
import { personaParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

/** The agent's own retrieval: memories and every session's messages of the persona, best first, with why. */
export const GET = handle(async (request, context: { params: Promise<{ name: string }> }) => {
  const params = personaParamsSchema.safeParse(await context.params);
  if (!params.success) throw validationError(params.error, 'persona name');
  const query = parseSearchParams(request, recallQuerySchema);
  const found = await recall({ personaName: params.data.name, query: query.q, k: query.k });
  // People's words kept their own (issue 61 §6): nothing said in, or remembered from, their conversations.
  const hidden = await wordsHiddenFromOwner(found.flatMap((hit) => (hit.sessionId ? [hit.sessionId] : [])));
  const hits = found.filter((hit) => !hit.sessionId || !hidden.has(hit.sessionId));
  return Response.json({
    results: hits.map((hit) => ({ kind: hit.kind, id: hit.id, session_id: hit.sessionId, content: hit.content, created_at: hit.createdAt.toISOString(), score: hit.score, why: hit.why, ...(hit.memoryKind && { memory_kind: hit.memoryKind }) })),
  });
});
