// People on the web (issue 61): what a signed-in person's request costs beyond the owner's token
// path, and a passkey sign-in. One SQLite store, 50 people with two sessions each. Interleaved per
// sample, in one process: the owner's request (token: no cookie to look up) and a person's (cookie →
// their session and person → the rights authority's web table → for a session, its people), each
// through the entry decision and then the same route the page calls (GET /api/sessions, which the
// person's answer filters to their own). A sign-in is the two ceremonies' routes with a software
// authenticator (ES256, as phones make them).
import { randomUUID } from 'node:crypto';
import * as sessionsRoute from '@/app/api/sessions/route';
import * as loginOptions from '@/app/api/auth/passkey/login/options/route';
import * as loginVerify from '@/app/api/auth/passkey/login/verify/route';
import * as registerOptions from '@/app/api/auth/passkey/register/options/route';
import * as registerVerify from '@/app/api/auth/passkey/register/verify/route';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { getDb } from '@/lib/store/db';
import { addSessionPeople } from '@/lib/store/people-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { createInvite } from '@/lib/store/web-auth-repository';
import { ACTOR_HEADER, decideEntry, PEER_HEADER, visitorHeaders } from '@/lib/web-auth/web-entry';
import { SoftAuthenticator } from '@/test/support/soft-authenticator';
import { freshStore } from './memory';
import { formatMs, median } from './stats';

export interface WebSignInBench {
  owner: number[];
  person: number[];
  ownerPage: number[];
  personPage: number[];
  signIn: number[];
}

const origin = 'http://localhost:3000';
const headers = { host: 'localhost:3000', origin, 'content-type': 'application/json' };

export async function benchWebSignIn(options: { samples: number }): Promise<WebSignInBench> {
  const done = await freshStore(undefined);
  const db = await getDb();
  const people = Array.from({ length: 50 }, () => randomUUID());
  await db.person.createMany({ data: people.map((id, index) => ({ id, name: `p${index}`, role: 'trusted' })) });
  const sessions: string[] = [];
  for (let index = 0; index < 100; index++) {
    const id = randomUUID();
    await insertSession({ id, name: `s${index}`, personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    await addSessionPeople(id, [people[index % people.length]!]);
    sessions.push(id);
  }
  // One person's passkey, made from an invite as a phone would; its sign-in gives the cookie.
  const phone = new SoftAuthenticator(origin);
  await createInvite({ token: 'bench-invite-0001', personId: people[0]!, expiresAt: new Date(Date.now() + 3600_000), now: new Date() });
  const post = (route: { POST: (request: Request, context: object) => Promise<Response> }, path: string, body: unknown) =>
    route.POST(new Request(`${origin}${path}`, { method: 'POST', headers: { ...headers, [ACTOR_HEADER]: 'stranger', [PEER_HEADER]: `bench-${Math.random()}` }, body: JSON.stringify(body) }), {});
  const made = (await (await post(registerOptions, '/api/auth/passkey/register/options', { invite: 'bench-invite-0001' })).json()) as { options: { challenge: string; rp: { id: string }; user: { id: string } } };
  const registered = await post(registerVerify, '/api/auth/passkey/register/verify', { credential: phone.register(made.options) });
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;

  const result: WebSignInBench = { owner: [], person: [], ownerPage: [], personPage: [], signIn: [] };
  const list = async (cookieHeader: string | undefined, tokenOk: boolean) => {
    const decision = await decideEntry({ method: 'GET', pathname: '/api/sessions', search: '', cookie: cookieHeader, tokenOk, now: new Date() });
    if (!decision.pass) throw new Error('refused');
    const answer = await sessionsRoute.GET(new Request(`${origin}/api/sessions`, { headers: { ...headers, ...visitorHeaders(decision.visitor) } }), {});
    await answer.arrayBuffer();
  };
  const page = async (cookieHeader: string | undefined, tokenOk: boolean) => {
    const decision = await decideEntry({ method: 'GET', pathname: `/sessions/${sessions[0]}`, search: '', cookie: cookieHeader, tokenOk, now: new Date() });
    if (!decision.pass) throw new Error('refused');
  };
  const time = async (samples: number[], work: () => Promise<void>) => {
    const begun = performance.now();
    await work();
    samples.push(performance.now() - begun);
  };
  for (let warm = 0; warm < 20; warm++) {
    await list(undefined, true);
    await list(cookie, false);
  }
  for (let index = 0; index < options.samples; index++) {
    const pairs: [number[], () => Promise<void>][] = [
      [result.owner, () => list(undefined, true)],
      [result.person, () => list(cookie, false)],
      [result.ownerPage, () => page(undefined, true)],
      [result.personPage, () => page(cookie, false)],
    ];
    for (const [samples, work] of index % 2 ? pairs.reverse() : pairs) await time(samples, work);
    await time(result.signIn, async () => {
      const asked = (await (await post(loginOptions, '/api/auth/passkey/login/options', {})).json()) as { options: { challenge: string } };
      const signed = await post(loginVerify, '/api/auth/passkey/login/verify', { credential: phone.authenticate(asked.options) });
      if (signed.status !== 200) throw new Error(`sign-in ${signed.status}`);
    });
  }
  await done();
  return result;
}

export function webSignInTable(bench: WebSignInBench): string {
  const row = (what: string, owner: number[], person: number[]) => `| ${what} | ${formatMs(median(owner))} | ${formatMs(median(person))} | ${formatMs(median(person) - median(owner))} |`;
  return [
    `${bench.owner.length} samples each, interleaved; medians in ms (SQLite, 50 people, 100 sessions).`,
    '',
    '| Request | Owner (token) | Signed-in person (cookie) | Added |',
    '|---|---|---|---|',
    row('Entry decision for `/sessions/:id` (the page)', bench.ownerPage, bench.personPage),
    row('Entry decision + `GET /api/sessions` (the home page’s list)', bench.owner, bench.person),
    '',
    `Passkey sign-in (login options + verify, ES256): median ${formatMs(median(bench.signIn))} ms.`,
  ].join('\n');
}
