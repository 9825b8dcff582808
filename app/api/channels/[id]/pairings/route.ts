import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, parseSearchParams, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { channelIdSchema } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema, bindingJson } from '@/lib/channels/channel-pairing';
import { isWeakIdentity } from '@/lib/channels/channel-identity';
import { deleteOpenPairings, findChannel, listOpenPairings } from '@/lib/store/channels-repository';
import { findSession } from '@/lib/store/sessions-repository';

export const dynamic = 'force-dynamic';

async function requireChannel(params: Promise<{ id: string }>) {
  const { id } = parseParams(await params, channelIdSchema);
  const channel = await findChannel(id);
  if (!channel) throw new ApiError('not_found', `No channel ${id}`);
  return channel;
}

/** Codes strangers were given and that wait for approval. */
export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const channel = await requireChannel(context.params);
  const pairings = await listOpenPairings(channel.id, new Date());
  return Response.json({
    pairings: pairings.map((pairing) => ({
      code: pairing.code,
      sender: pairing.senderName,
      first_text: pairing.firstText,
      // Paired, this sender converses but never gets or decides a card (an IRC identity without an account).
      weak: isWeakIdentity(pairing.sender),
      expires_at: pairing.expiresAt.toISOString(),
      created_at: pairing.createdAt.toISOString(),
    })),
  });
});

const withdrawSchema = z.object({ code: z.string().trim().toUpperCase().regex(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/, 'a pairing code looks like K7Q2-MX9P').optional() }).strict();

/** Withdraws the codes waiting (or the one `?code=` names): a flood of strangers is cleared from here. */
export const DELETE = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const channel = await requireChannel(context.params);
  const { code } = parseSearchParams(request, withdrawSchema);
  const withdrawn = await deleteOpenPairings(channel.id, code);
  if (code && withdrawn === 0) throw new ApiError('not_found', `No pairing code ${code} waits on this channel`);
  return Response.json({ withdrawn });
});

/** Approves a code: its sender is bound to a session or a persona (once; an expired or used code is 404). */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const channel = await requireChannel(context.params);
  const input = await readJsonBody(request, approvePairingSchema);
  if (input.session_id && !(await findSession({ id: input.session_id }))) throw new ApiError('not_found', `No session ${input.session_id}`);
  const binding = await approveAndBind(channel.id, input);
  if (!binding) throw new ApiError('not_found', `No pairing code ${input.code} waits on this channel (unknown, expired or already approved)`);
  getOrchestrator().channels?.wake(channel.id);
  return Response.json({ binding: bindingJson(binding) }, { status: 201 });
});
