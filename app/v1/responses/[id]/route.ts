// A response the Responses door kept (issue 78 §1): read it back, or delete it. A key sees only its own.
import { doorHandler, doorKey } from '@/lib/http/openai-door';
import { storedResponse } from '@/lib/http/responses-door';
import { deleteDoorResponse } from '@/lib/store/door-responses-repository';

export const dynamic = 'force-dynamic';

const idOf = (request: Request) => decodeURIComponent(new URL(request.url).pathname.split('/').at(-1) ?? '');

export const GET = doorHandler(async (request) => {
  const found = await storedResponse(await doorKey(request), idOf(request));
  return Response.json(found.body);
});

export const DELETE = doorHandler(async (request) => {
  const key = await doorKey(request);
  const found = await storedResponse(key, idOf(request));
  await deleteDoorResponse(key.id, found.id);
  return Response.json({ id: found.id, object: 'response', deleted: true });
});
