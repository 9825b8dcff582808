import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { findSession } from '@/lib/store/sessions-repository';
import { insertHook, listHooks } from '@/lib/store/triggers-repository';
import { createHookSchema, hookJson, newHookSecret } from '@/lib/triggers/webhook';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().uuid('the session id is a UUID') }).strict();

async function requireSession(params: Promise<{ id: string }>) {
  const { id } = parseParams(await params, paramsSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `No session ${id}`);
  return id;
}

/** The session's webhooks; their secrets masked (shown once, when made). */
export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const id = await requireSession(context.params);
  const origin = new URL(request.url).origin;
  return Response.json({ hooks: (await listHooks(id)).map((hook) => hookJson(hook, origin)) });
});

/** A new webhook: {name, action?} → 201 {hook: {id, url, secret}} — the secret is shown this once. */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const sessionId = await requireSession(context.params);
  const body = await readJsonBody(request, createHookSchema);
  const hook = await insertHook({ id: randomUUID(), sessionId, name: body.name, secret: newHookSecret(), action: body.action });
  return Response.json({ hook: hookJson(hook, new URL(request.url).origin, true) }, { status: 201 });
});
