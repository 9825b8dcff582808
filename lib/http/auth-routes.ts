// The passkey routes' shared steps (issue 61, ARCHITECTURE §27): the body's shapes, and the answer
// that signs a browser in (the session cookie, Secure behind HTTPS).
import { z } from 'zod';
import type { PersonRecord } from '@/lib/store/people-repository';
import { PasskeyRefused } from '@/lib/web-auth/passkeys';
import type { RelyingParty } from '@/lib/web-auth/relying-party';
import { sessionCookie, signIn } from '@/lib/web-auth/web-sessions';
import { ApiError } from './api-error';

/** A WebAuthn answer as @simplewebauthn/browser sends it: checked by the library, bounded here. */
export const credentialSchema = z
  .object({
    id: z.string().min(1).max(1024),
    rawId: z.string().min(1).max(1024),
    type: z.literal('public-key'),
    response: z.record(z.string(), z.unknown()),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.string().max(40).optional(),
  })
  .loose();

export const deviceNameSchema = z.string().trim().min(1).max(80);

/** A refused ceremony as the REST answer: an invite that is no good is 404, the rest 400. */
export function refusal(error: unknown): never {
  if (error instanceof PasskeyRefused) throw new ApiError(error.code === 'invalid_invite' || error.code === 'unknown_passkey' ? 'not_found' : 'validation_failed', error.message);
  throw error;
}

/** The 200 that signs this browser in as the person. */
export async function signedInResponse(input: { person: Pick<PersonRecord, 'id' | 'name' | 'role'>; passkeyId: string; rp: RelyingParty; userAgent: string; now: Date; body?: Record<string, unknown> }): Promise<Response> {
  const secret = await signIn({ personId: input.person.id, userAgent: input.userAgent, passkeyId: input.passkeyId, now: input.now });
  return Response.json({ person: { id: input.person.id, name: input.person.name, role: input.person.role }, ...input.body }, { headers: { 'set-cookie': sessionCookie(secret, input.rp.secure) } });
}

export function userAgentOf(request: Request): string {
  return request.headers.get('user-agent') ?? '';
}
