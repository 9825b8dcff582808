// An invite for a person (issue 61 §1, ARCHITECTURE §27): a one-time link to make a passkey, good
// for 24 hours, shown once (only its hash is kept) with a QR code of it for a phone's camera.
import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { linkBase } from '@/lib/http/web-visitor';
import { findPerson } from '@/lib/store/people-repository';
import { createInvite } from '@/lib/store/web-auth-repository';

export const dynamic = 'force-dynamic';

const INVITE_TTL_MS = 24 * 3600_000;
const paramsSchema = z.object({ id: z.string().min(1).max(200) });

export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const person = await findPerson(id);
  if (!person) throw new ApiError('not_found', `No person ${id}`);
  const token = randomBytes(24).toString('base64url');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
  await createInvite({ token, personId: person.id, expiresAt, now });
  const url = `${linkBase(request)}/join/${token}`;
  const qrSvg = await QRCode.toString(url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return Response.json({ url, expires_at: expiresAt.toISOString(), qr_svg: qrSvg }, { status: 201 });
});
