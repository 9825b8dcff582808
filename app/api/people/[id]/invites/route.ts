// An invite for a person (issue 61 §1, ARCHITECTURE §27): a one-time link to make a passkey, good
// for 24 hours, shown once (only its hash is kept) with a QR code of it for a phone's camera. On an
// app that needed no sign-in (loopback, no token), the first invite turns sign-in on for everyone
// (issue 75 §2): this browser keeps the owner's role by the token's cookie, and the answer says how
// the owner gets in from elsewhere (their passkey, or the owner's link).
import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { z } from 'zod';
import { appPaths, readEnv } from '@/lib/config/env';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { linkBase } from '@/lib/http/web-visitor';
import { tokenCookie, turnOnSignIn } from '@/lib/security/access-token';
import { findPerson, OWNER_ID } from '@/lib/store/people-repository';
import { createInvite } from '@/lib/store/web-auth-repository';

export const dynamic = 'force-dynamic';

const INVITE_TTL_MS = 24 * 3600_000;
const paramsSchema = z.object({ id: z.string().min(1).max(200) });

export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const person = await findPerson(id);
  if (!person) throw new ApiError('not_found', `No person ${id}`);
  if (person.id === OWNER_ID) throw new ApiError('unprocessable', 'The owner signs in with their own passkey (Settings › My devices), not an invite');
  const token = randomBytes(24).toString('base64url');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
  await createInvite({ token, personId: person.id, expiresAt, now });
  const url = `${linkBase(request)}/join/${token}`;
  const qrSvg = await QRCode.toString(url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  const signIn = turnOnSignIn(appPaths(readEnv()).dataDir);
  const base = linkBase(request);
  const body = { url, expires_at: expiresAt.toISOString(), qr_svg: qrSvg, sign_in: { turned_on: signIn.turnedOn, ...(signIn.turnedOn && { owner_link: `${base}/?token=${signIn.token}` }) } };
  // This browser is the owner's: from now on it is by this cookie (or the owner's passkey).
  const headers = signIn.turnedOn ? { 'set-cookie': tokenCookie(signIn.token, base.startsWith('https:')) } : undefined;
  return Response.json(body, { status: 201, headers });
});
