// Revoking a door key (issue 46 §1): at once, for good.
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { revokeApiKey } from '@/lib/store/api-keys-repository';
import { visitorOf } from '@/lib/http/web-visitor';

export const dynamic = 'force-dynamic';

const keyParamsSchema = z.object({ id: z.string().regex(/^[0-9a-f]{16}$/, 'a key id') });

export const DELETE = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, keyParamsSchema);
  // A trusted person revokes their own keys only (issue 61 §3); another's answers as unknown.
  const visitor = await visitorOf(request);
  if (!(await revokeApiKey(id, visitor.owner ? undefined : visitor.person?.id))) throw new ApiError('not_found', `No live key ${id}`);
  return new Response(null, { status: 204 });
});
