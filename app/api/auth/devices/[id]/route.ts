// Renames or revokes one of the person's passkeys, or ends one of their signed-in browsers (issue
// 61 §1). Only their own: anyone else's answers as if it did not exist.
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { deviceNameSchema } from '@/lib/http/auth-routes';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { signedInVisitor } from '@/lib/http/web-visitor';
import { endWebSession, renamePasskey, revokePasskey } from '@/lib/store/web-auth-repository';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,1024}$/) });
type Context = { params: Promise<{ id: string }> };

export const PATCH = handle(async (request, context: Context) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const { person } = await signedInVisitor(request);
  const { name } = await readJsonBody(request, z.object({ name: deviceNameSchema }).strict(), 4096);
  if (!(await renamePasskey(person.id, id, name))) throw new ApiError('not_found', 'No such passkey of yours');
  return Response.json({ passkey: { id, name } });
});

export const DELETE = handle(async (request, context: Context) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const { person } = await signedInVisitor(request);
  if (!(await revokePasskey(person.id, id)) && !(await endWebSession(person.id, id))) throw new ApiError('not_found', 'No such passkey or signed-in browser of yours');
  return new Response(null, { status: 204 });
});
