// Issue 75 §2: on the app as installed (loopback, no token) the first invite turns sign-in on for
// everyone. The owner's browser that made it keeps the owner's role by the token's cookie; from then
// on a browser with neither that token nor a passkey is a stranger (sent to sign in), in this process
// and at the next start; the invited person is never the owner. The owner is not invited.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import * as invitesRoute from '@/app/api/people/[id]/invites/route';
import { holdGuard, signInIsOn } from '@/lib/security/access-token';
import { checkRequest, type GuardOptions } from '@/lib/security/request-guard';
import { getDb } from '@/lib/store/db';
import { OWNER_ID } from '@/lib/store/people-repository';
import { ACTOR_HEADER, decideEntry } from '@/lib/web-auth/web-entry';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs();
const guard: GuardOptions = { port: 3000, extraHosts: [] };
let alice = '';

beforeAll(async () => {
  holdGuard(guard);
  alice = randomUUID();
  await (await getDb()).person.create({ data: { id: alice, name: 'Alice', role: 'trusted' } });
});

const invite = (id: string) =>
  invitesRoute.POST(new Request(`http://localhost:3000/api/people/${id}/invites`, { method: 'POST', headers: { host: 'localhost:3000', [ACTOR_HEADER]: OWNER_ID } }), { params: Promise.resolve({ id }) });

/** The entry's decision for a page load from a browser holding `token` (or nothing), as server.ts asks it. */
async function pageLoad(token?: string) {
  const verdict = checkRequest({ method: 'GET', host: 'localhost:3000', origin: undefined, token }, guard);
  return decideEntry({ method: 'GET', pathname: '/', search: '', cookie: undefined, tokenOk: verdict.ok, open: !guard.accessToken, now: new Date() });
}

describe('the first invite on an open app', () => {
  it('turns sign-in on: the owner keeps their role by the cookie it sets, every other browser is sent to sign in', async () => {
    expect(signInIsOn(dirs.dataDir)).toBe(false);
    expect(await pageLoad()).toMatchObject({ pass: true, visitor: { kind: 'owner' } });

    const first = await invite(alice);
    expect(first.status).toBe(201);
    const body = (await first.json()) as { sign_in: { turned_on: boolean; owner_link?: string } };
    const kept = fs.readFileSync(path.join(dirs.dataDir, 'access-token'), 'utf8').trim();
    expect(body.sign_in).toEqual({ turned_on: true, owner_link: `http://localhost:3000/?token=${kept}` });
    expect(first.headers.get('set-cookie')).toBe(`agentcsd_token=${kept}; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000`);
    expect(guard.accessToken).toBe(kept);
    expect(signInIsOn(dirs.dataDir)).toBe(true);

    // A browser with nothing is a stranger now; the one holding the cookie's token is the owner.
    expect(await pageLoad()).toEqual({ pass: false, answer: 'sign-in', location: '/sign-in' });
    expect(await pageLoad('not-the-token')).toEqual({ pass: false, answer: 'sign-in', location: '/sign-in' });
    expect(await pageLoad(kept)).toMatchObject({ pass: true, visitor: { kind: 'owner' } });
  });

  it('says it once: a later invite neither sets a cookie nor shows the owner’s link again', async () => {
    const second = await invite(alice);
    expect(second.status).toBe(201);
    expect(((await second.json()) as { sign_in: unknown }).sign_in).toEqual({ turned_on: false });
    expect(second.headers.get('set-cookie')).toBeNull();
  });

  it('refuses to invite the owner (their own passkey is made in Settings › My devices)', async () => {
    const answer = await invite(OWNER_ID);
    expect(answer.status).toBe(422);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('unprocessable');
  });
});
