import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { personParamsSchema } from '@/lib/http/people-json';
import { findPerson } from '@/lib/store/people-repository';
import { endWebSessionsOf } from '@/lib/store/web-auth-repository';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ id: string }> };

/** Signs a person out everywhere (issue 75 §6): every browser signed in as them signs in again; their passkeys stay. */
export const DELETE = handle(async (_request, context: Context) => {
  const { id } = parseParams(await context.params, personParamsSchema);
  if (!(await findPerson(id))) throw new ApiError('not_found', `No person ${id}`);
  return Response.json({ signed_out: await endWebSessionsOf(id) });
});
