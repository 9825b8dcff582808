import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { bindingJson, bindingPatchSchema } from '@/lib/channels/channel-pairing';
import { listBindings, updateBinding } from '@/lib/store/channels-repository';
import { findSession } from '@/lib/store/sessions-repository';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().uuid('the session id is a UUID') }).strict();
const putSchema = z.object({ bindings: z.array(bindingPatchSchema.extend({ id: z.string().uuid() })).max(100) }).strict();

async function requireSession(params: Promise<{ id: string }>) {
  const { id } = parseParams(await params, paramsSchema);
  const session = await findSession({ id });
  if (!session) throw new ApiError('not_found', `No session ${id}`);
  return session;
}

/** The chats bound to this session, and those bound to its persona. */
async function bindingsOf(sessionId: string, persona: string) {
  const own = await listBindings({ sessionId });
  const viaPersona = (await listBindings({ persona })).filter((binding) => !binding.sessionId);
  return [...own, ...viaPersona].map(bindingJson);
}

export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const session = await requireSession(context.params);
  return Response.json({ bindings: await bindingsOf(session.id, session.personaName) });
});

/** Changes what each binding is pushed, its quiet hours and whether its voice notes are answered by voice. */
export const PUT = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const session = await requireSession(context.params);
  const body = await readJsonBody(request, putSchema);
  const mine = new Set((await bindingsOf(session.id, session.personaName)).map((binding) => binding.id));
  const foreign = body.bindings.find((binding) => !mine.has(binding.id));
  if (foreign) throw new ApiError('not_found', `No binding ${foreign.id} on this session`);
  for (const { id, push, quiet_hours, voice_replies } of body.bindings) await updateBinding(id, { ...(push && { push }), ...(quiet_hours !== undefined && { quietHours: quiet_hours }), ...(voice_replies !== undefined && { voiceReplies: voice_replies }) });
  return Response.json({ bindings: await bindingsOf(session.id, session.personaName) });
});
