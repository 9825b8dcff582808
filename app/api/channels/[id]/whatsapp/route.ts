// Meta's webhook for a WhatsApp channel (issue 77 §1): no Origin, no access token (lib/security lets
// this one path through on its own terms), and nothing is read unless the channel's app secret
// signed the raw body. GET is the verification handshake; POST a delivery, answered 200 only once
// its messages are recorded — any other answer and Meta sends it again. A channel not running in
// this process (stopped, or held by another process of a cluster) is 503: Meta retries.
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readLimitedBytes } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import type { ChannelWebhookAnswer } from '@/lib/channels/channel-types';

export const dynamic = 'force-dynamic';

/** Meta's deliveries are small JSON (a media file comes by its id, never in the body). */
const BODY_LIMIT = 1024 * 1024;

const paramsSchema = z.object({ id: z.string().uuid('the channel id is a UUID') }).strict();

async function deliver(request: Request, params: Promise<{ id: string }>, raw: Uint8Array): Promise<Response> {
  const { id } = parseParams(await params, paramsSchema);
  const answered: Promise<ChannelWebhookAnswer> | null | undefined = getOrchestrator().channels?.webhook(id, { method: request.method, query: new URL(request.url).searchParams, headers: request.headers, raw });
  if (!answered) throw new ApiError('unavailable', 'No WhatsApp channel runs here at this address now: Meta sends it again');
  const answer = await answered;
  return new Response(answer.body, { status: answer.status, headers: { 'content-type': `${answer.contentType}; charset=utf-8`, 'cache-control': 'no-store' } });
}

export const GET = handle((request, context: { params: Promise<{ id: string }> }) => deliver(request, context.params, new Uint8Array(0)));

export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => deliver(request, context.params, await readLimitedBytes(request, BODY_LIMIT)));
