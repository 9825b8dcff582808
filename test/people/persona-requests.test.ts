// Issue 75 §4: a guest with no persona asks the owner from their page; the owner sees the request on
// People (with the guest's note) and gives a persona in one click, which answers it; a trusted
// person or the owner has nothing to ask; forgetting the guest drops the request. Both stores.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import * as peopleRoute from '@/app/api/people/route';
import * as personRoute from '@/app/api/people/[id]/route';
import * as requestsRoute from '@/app/api/persona-requests/route';
import { reachWeb } from '@/lib/people/web-reach';
import { getDb } from '@/lib/store/db';
import { findPerson, OWNER_ID } from '@/lib/store/people-repository';
import { ACTOR_HEADER } from '@/lib/web-auth/web-entry';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let bob = '';
let alice = '';

beforeAll(async () => {
  [bob, alice] = [randomUUID(), randomUUID()];
  const db = await getDb();
  await db.person.create({ data: { id: bob, name: 'Bob', role: 'guest' } });
  await db.person.create({ data: { id: alice, name: 'Alice', role: 'trusted' } });
});

const as = (actor: string, method: string, body?: unknown) =>
  new Request('http://localhost:3000/api/persona-requests', { method, headers: { host: 'localhost:3000', 'content-type': 'application/json', [ACTOR_HEADER]: actor }, ...(body !== undefined && { body: JSON.stringify(body) }) });

async function json(response: Response | Promise<Response>) {
  const answer = await response;
  return { status: answer.status, body: (await answer.json()) as Record<string, any> };
}

describe('asking for a persona', () => {
  it('a guest asks with a note; the owner sees it on People; the rights table lets the guest reach the route', async () => {
    expect((await reachWeb((await findPerson(bob))!, 'POST', '/api/persona-requests')).verdict).toBe('allow');
    expect((await json(requestsRoute.GET(as(bob, 'GET'), {}))).body).toEqual({ request: null });
    const asked = await json(requestsRoute.POST(as(bob, 'POST', { note: '  someone to help with homework ' }), {}));
    expect(asked.status).toBe(201);
    expect(asked.body.request).toMatchObject({ note: 'someone to help with homework' });
    expect((await json(requestsRoute.GET(as(bob, 'GET'), {}))).body.request).toMatchObject({ note: 'someone to help with homework' });

    const owner = await json(requestsRoute.GET(as(OWNER_ID, 'GET'), {}));
    expect(owner.body.requests).toEqual([{ person_id: bob, name: 'Bob', asked_at: asked.body.request.asked_at, note: 'someone to help with homework' }]);
    const people = await json(peopleRoute.GET(new Request('http://localhost:3000/api/people', { headers: { [ACTOR_HEADER]: OWNER_ID } }), {}));
    const listed = (people.body.people as { id: string; persona_request: unknown }[]).find((person) => person.id === bob);
    expect(listed?.persona_request).toMatchObject({ note: 'someone to help with homework' });
  });

  it('refuses whoever has every persona already, and a note past its size', async () => {
    expect(await json(requestsRoute.POST(as(alice, 'POST', {}), {}))).toMatchObject({ status: 422, body: { error: { code: 'unprocessable' } } });
    expect(await json(requestsRoute.POST(as(OWNER_ID, 'POST', {}), {}))).toMatchObject({ status: 422 });
    expect((await json(requestsRoute.POST(as(bob, 'POST', { note: 'x'.repeat(501) }), {}))).status).toBe(400);
    expect((await json(requestsRoute.POST(as(bob, 'POST', { persona: 'iris' }), {}))).status).toBe(400);
    expect((await json(requestsRoute.POST(as('stranger', 'POST', {}), {}))).status).toBe(401);
  });

  it('is answered when the owner gives a persona, and goes with a forgotten guest', async () => {
    const given = await personRoute.PATCH(
      new Request(`http://localhost:3000/api/people/${bob}`, { method: 'PATCH', headers: { 'content-type': 'application/json', [ACTOR_HEADER]: OWNER_ID }, body: JSON.stringify({ limits: { personas: ['iris'] } }) }),
      { params: Promise.resolve({ id: bob }) },
    );
    expect(given.status).toBe(200);
    expect((await json(requestsRoute.GET(as(bob, 'GET'), {}))).body).toEqual({ request: null });
    expect((await json(requestsRoute.GET(as(OWNER_ID, 'GET'), {}))).body.requests).toEqual([]);

    const carol = randomUUID();
    await (await getDb()).person.create({ data: { id: carol, name: 'Carol', role: 'guest' } });
    expect((await json(requestsRoute.POST(as(carol, 'POST', {}), {}))).status).toBe(201);
    const forgotten = await personRoute.DELETE(new Request(`http://localhost:3000/api/people/${carol}`, { method: 'DELETE', headers: { [ACTOR_HEADER]: OWNER_ID } }), { params: Promise.resolve({ id: carol }) });
    expect(forgotten.status).toBe(204);
    expect(await (await getDb()).setting.count({ where: { key: `persona_request:${carol}` } })).toBe(0);
  });
});
