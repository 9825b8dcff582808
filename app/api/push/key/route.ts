// The app's VAPID public key (issue 61 §5): a browser subscribes to push with it.
import { handle } from '@/lib/http/route-helpers';
import { signedInVisitor } from '@/lib/http/web-visitor';
import { vapidKeys } from '@/lib/web-auth/push';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request) => {
  await signedInVisitor(request);
  return Response.json({ public_key: (await vapidKeys()).publicKey });
});
