import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { deleteBinding } from '@/lib/store/channels-repository';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().uuid('the binding id is a UUID') }).strict();

/** Unbinds a chat: its sender is a stranger again (a new message gets a new pairing code). */
export const DELETE = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  if (!(await deleteBinding(id))) throw new ApiError('not_found', `No binding ${id}`);
  return new Response(null, { status: 204 });
});
