// Revoking a door key (issue 46 §1): at once, for good.
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { revokeApiKey } from '@/lib/store/api-keys-repository';

export const dynamic = 'force-dynamic';

const keyParamsSchema = z.object({ id: z.string().regex(/^[0-9a-f]{16}$/, 'a key id') });

export const DELETE = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, keyParamsSchema);
  if (!(await revokeApiKey(id))) throw new ApiError('not_found', `No live key ${id}`);
  return new Response(null, { status: 204 });
});
