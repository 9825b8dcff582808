// A device of the signed-in person allows notifications, or stops (issue 61 §5). A subscription
// whose push service is not a public HTTPS one (or one the owner listed) is refused here, before
// anything is ever sent to it.
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { signedInVisitor } from '@/lib/http/web-visitor';
import { dropPushSubscription, savePushSubscription } from '@/lib/store/web-auth-repository';
import { endpointRefusal } from '@/lib/web-auth/push';

export const dynamic = 'force-dynamic';

const base64url = z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/, 'base64url');
const subscriptionSchema = z
  .object({
    endpoint: z.string().url().max(2048),
    expirationTime: z.number().nullable().optional(),
    keys: z.object({ p256dh: base64url.min(80).max(100), auth: base64url.min(16).max(32) }).strict(),
  })
  .strict();

export const POST = handle(async (request) => {
  const { person } = await signedInVisitor(request);
  const subscription = await readJsonBody(request, subscriptionSchema, 8 * 1024);
  const judged = await endpointRefusal(subscription.endpoint);
  if (judged.reason) throw new ApiError('validation_failed', `This push service is refused: ${judged.reason}`);
  const saved = await savePushSubscription({ endpoint: subscription.endpoint, personId: person.id, p256dh: subscription.keys.p256dh, auth: subscription.keys.auth });
  if (saved === 'taken') throw new ApiError('conflict', "This push endpoint is another person's device: allow notifications from this browser again to make one of your own");
  return Response.json({ subscribed: true }, { status: 201 });
});

export const DELETE = handle(async (request) => {
  const { person } = await signedInVisitor(request);
  const { endpoint } = await readJsonBody(request, z.object({ endpoint: z.string().url().max(2048) }).strict(), 4096);
  if (!(await dropPushSubscription(endpoint, person.id))) throw new ApiError('not_found', 'No such device of yours');
  return new Response(null, { status: 204 });
});
