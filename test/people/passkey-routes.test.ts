// The passkey routes (issue 61 §1-2) with a software authenticator: an invite makes a passkey and
// signs the browser in (a cookie whose secret is stored only hashed); the passkey signs in again;
// hostile answers change nothing — another origin, a replayed or foreign challenge, a used invite,
// an unknown or revoked passkey, a flood of attempts. Both stores.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import * as invitesRoute from '@/app/api/people/[id]/invites/route';
import * as loginOptions from '@/app/api/auth/passkey/login/options/route';
import * as loginVerify from '@/app/api/auth/passkey/login/verify/route';
import * as registerOptions from '@/app/api/auth/passkey/register/options/route';
import * as registerVerify from '@/app/api/auth/passkey/register/verify/route';
import * as logoutRoute from '@/app/api/auth/logout/route';
import { getDb } from '@/lib/store/db';
import { OWNER_ID } from '@/lib/store/people-repository';
import { passkeysOf, revokePasskey } from '@/lib/store/web-auth-repository';
import { ACTOR_HEADER, PEER_HEADER } from '@/lib/web-auth/web-entry';
import { sessionSecret, signedIn } from '@/lib/web-auth/web-sessions';
import { SoftAuthenticator } from '@/test/support/soft-authenticator';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
const origin = 'http://localhost:3000';
let carol = '';
let peer = 0;

beforeAll(async () => {
  carol = randomUUID();
  await (await getDb()).person.create({ data: { id: carol, name: 'Carol', role: 'trusted' } });
});

/** A request as the server's entry hands it to a route: Host, Origin, who (a stranger here), a peer address per test. */
function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return new Request(`${origin}${path}`, {
    method: 'POST',
    headers: { host: 'localhost:3000', origin, 'content-type': 'application/json', [ACTOR_HEADER]: 'stranger', [PEER_HEADER]: `10.0.0.${peer}`, ...headers },
    body: JSON.stringify(body),
  });
}

async function invite(): Promise<string> {
  const made = await invitesRoute.POST(new Request(`${origin}/api/people/${carol}/invites`, { method: 'POST', headers: { host: 'localhost:3000', [ACTOR_HEADER]: OWNER_ID } }), { params: Promise.resolve({ id: carol }) });
  expect(made.status).toBe(201);
  const { url, qr_svg } = (await made.json()) as { url: string; qr_svg: string };
  expect(url).toMatch(/^http:\/\/localhost:3000\/join\/[A-Za-z0-9_-]{32}$/);
  expect(qr_svg).toMatch(/^<svg/);
  return url.split('/join/')[1]!;
}

async function json(response: Response) {
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, cookie: response.headers.get('set-cookie') };
}

async function registerFrom(token: string, authenticator: SoftAuthenticator) {
  const asked = await json(await registerOptions.POST(post('/api/auth/passkey/register/options', { invite: token }), {}));
  if (asked.status !== 200) return asked;
  const options = asked.body.options as { challenge: string; rp: { id: string }; user: { id: string } };
  return json(await registerVerify.POST(post('/api/auth/passkey/register/verify', { credential: authenticator.register(options), name: 'Carol’s phone' }), {}));
}

async function signInWith(authenticator: SoftAuthenticator, which?: number) {
  const { body } = await json(await loginOptions.POST(post('/api/auth/passkey/login/options', {}), {}));
  const answer = await json(await loginVerify.POST(post('/api/auth/passkey/login/verify', { credential: authenticator.authenticate(body.options as { challenge: string }, which) }), {}));
  return answer;
}

describe('a passkey from an invite', () => {
  it('is made, signs this browser in, and signs in again; the invite is used up', async () => {
    peer = 1;
    const phone = new SoftAuthenticator(origin);
    const token = await invite();
    const made = await registerFrom(token, phone);
    expect(made.status).toBe(200);
    expect(made.body.person).toEqual({ id: carol, name: 'Carol', role: 'trusted' });
    expect(made.cookie).toMatch(/^agentcsd_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\/; Max-Age=\d+$/);
    expect((await signedIn(sessionSecret(made.cookie!), new Date()))?.person.id).toBe(carol);
    expect((await passkeysOf(carol)).map((key) => key.name)).toEqual(['Carol’s phone']);
    // The same invite again: no second passkey.
    expect((await registerFrom(token, new SoftAuthenticator(origin))).status).toBe(404);

    const again = await signInWith(phone);
    expect(again.status).toBe(200);
    expect(again.cookie).toMatch(/^agentcsd_session=/);
    expect((await passkeysOf(carol))[0]!.counter).toBe(1);
    // Signed out: that cookie signs nothing in.
    const secret = sessionSecret(again.cookie!)!;
    const out = await logoutRoute.POST(post('/api/auth/logout', {}, { cookie: `agentcsd_session=${secret}` }), {});
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect(await signedIn(secret, new Date())).toBeNull();
  });

  it('refuses an answer for another origin, a replayed challenge, a forged signature, an unknown or revoked passkey', async () => {
    peer = 2;
    const phone = new SoftAuthenticator(origin);
    expect((await registerFrom(await invite(), phone)).status).toBe(200);
    const before = await (await getDb()).webSession.count();

    // A phishing page's answer names its own origin.
    const phisher = new SoftAuthenticator('http://localhost.evil.example:3000');
    phisher.register({ challenge: 'x', rp: { id: 'localhost' }, user: { id: 'u' } });
    const { body } = await json(await loginOptions.POST(post('/api/auth/passkey/login/options', {}), {}));
    const options = body.options as { challenge: string };
    const foreign = phone.authenticate(options);
    (foreign.response as Record<string, string>).clientDataJSON = (phisher.authenticate({ ...options, rpId: 'localhost' }).response as Record<string, string>).clientDataJSON!;
    expect((await json(await loginVerify.POST(post('/api/auth/passkey/login/verify', { credential: foreign }), {}))).status).toBe(400);
    // That challenge was spent by the refused answer: a good answer to it is refused too.
    expect((await json(await loginVerify.POST(post('/api/auth/passkey/login/verify', { credential: phone.authenticate(options) }), {}))).status).toBe(400);
    // A challenge the server never handed out.
    expect((await json(await loginVerify.POST(post('/api/auth/passkey/login/verify', { credential: phone.authenticate({ challenge: 'bm90LWlzc3VlZA' }) }), {}))).status).toBe(400);
    // A signature that does not verify.
    const { body: fresh } = await json(await loginOptions.POST(post('/api/auth/passkey/login/options', {}), {}));
    const forged = phone.authenticate(fresh.options as { challenge: string });
    (forged.response as Record<string, string>).signature = Buffer.from('30440220' + '11'.repeat(32) + '0220' + '22'.repeat(32), 'hex').toString('base64url');
    expect((await json(await loginVerify.POST(post('/api/auth/passkey/login/verify', { credential: forged }), {}))).status).toBe(400);
    // A passkey this app does not know (never made here, or revoked).
    const stranger = new SoftAuthenticator(origin);
    stranger.register({ challenge: 'x', rp: { id: 'localhost' }, user: { id: 'someone' } });
    expect((await signInWith(stranger)).status).toBe(404);
    // None of those signed anything in.
    expect(await (await getDb()).webSession.count()).toBe(before);
    // Revoked, the passkey signs in no more, and the browser it signed in is signed out with it.
    expect(await revokePasskey(carol, (await passkeysOf(carol)).at(-1)!.id)).toBe(true);
    expect((await signInWith(phone)).status).toBe(404);
    expect(await (await getDb()).webSession.count()).toBe(before - 1);
  });

  it('an invite is not valid on its own after 24 hours, nor one that was never made; a flood of attempts is stopped', async () => {
    peer = 3;
    const unknown = await json(await registerOptions.POST(post('/api/auth/passkey/register/options', { invite: 'A'.repeat(32) }), {}));
    expect(unknown.status).toBe(404);
    expect(String((unknown.body.error as { message: string }).message)).toMatch(/not valid/);
    const answers: number[] = [];
    for (let attempt = 0; attempt < 40; attempt++) answers.push((await loginOptions.POST(post('/api/auth/passkey/login/options', {}), {})).status);
    expect(answers.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(answers.slice(0, 20).every((status) => status === 200)).toBe(true);
  });
});
