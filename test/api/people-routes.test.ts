// People through their routes (issue 42, ARCHITECTURE §21): the owner is listed from the start; a
// person is made, renamed, made trusted; two people become one with both identities (their chats
// and conversations follow); the owner can neither be removed, merged away nor demoted, and nobody
// else becomes an owner; bad input is a 400 that changes nothing.
import { describe, expect, it } from 'vitest';
import * as people from '@/app/api/people/route';
import * as person from '@/app/api/people/[id]/route';
import * as identities from '@/app/api/people/[id]/identities/route';
import * as memoriesRoute from '@/app/api/memories/route';
import { appendMemory } from '@/lib/memory/memory-store';
import { addSessionPeople, findPersonBySender, listPeople, personForSender, sessionPeople } from '@/lib/store/people-repository';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { insertSession } from '@/lib/store/sessions-repository';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
const base = 'http://127.0.0.1:3000';
const json = (method: string, url: string, body: unknown) => new Request(`${base}${url}`, { method, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const params = (id: string) => ({ params: Promise.resolve({ id }) });
const read = async (response: Response) => ({ status: response.status, body: (response.status === 204 ? null : await response.json()) as Record<string, any> });

describe('/api/people', () => {
  it('lists the owner, makes and changes people, merges identities, and refuses what would break the owner', async () => {
    expect((await read(await people.GET(new Request(`${base}/api/people`), { params: Promise.resolve({}) }))).body.people).toEqual([expect.objectContaining({ id: 'owner', role: 'owner', identities: [] })]);
    const made = await read(await people.POST(json('POST', '/api/people', { name: 'Dana' }), { params: Promise.resolve({}) }));
    expect(made).toMatchObject({ status: 201, body: { person: { name: 'Dana', role: 'guest', identities: [] } } });
    const dana = made.body.person.id as string;

    const changed = await read(await person.PATCH(json('PATCH', `/api/people/${dana}`, { role: 'trusted', limits: { messages_per_day: 50 } }), params(dana)));
    expect(changed.body.person).toMatchObject({ role: 'trusted', limits: { messages_per_day: 50 } });

    // Dana on Telegram and on IRC, paired separately: one person after the merge, her conversations with her.
    const telegram = await personForSender({ sender: 'telegram:77', name: '@dana' });
    const irc = await personForSender({ sender: 'irc:dana/dana', name: 'dana' });
    const id = crypto.randomUUID();
    await insertSession({ id, name: 'hers', personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    await addSessionPeople(id, [irc.id]);
    for (const from of [telegram.id, irc.id]) expect((await identities.POST(json('POST', `/api/people/${dana}/identities`, { merge_from: from }), params(dana))).status).toBe(200);
    expect((await findPersonBySender('telegram:77'))!.id).toBe(dana);
    expect((await findPersonBySender('irc:dana/dana'))!.id).toBe(dana);
    expect(await sessionPeople(id)).toEqual([dana]);
    expect((await listPeople()).map((entry) => entry.id).sort()).toEqual([dana, 'owner'].sort());

    const refusals: [string, Response, number][] = [
      ['the owner demoted', await person.PATCH(json('PATCH', '/api/people/owner', { role: 'trusted' }), params('owner')), 409],
      ['a second owner', await person.PATCH(json('PATCH', `/api/people/${dana}`, { role: 'owner' }), params(dana)), 409],
      ['the owner removed', await person.DELETE(new Request(`${base}/api/people/owner`, { method: 'DELETE' }), params('owner')), 409],
      ['the owner merged away', await identities.POST(json('POST', `/api/people/${dana}/identities`, { merge_from: 'owner' }), params(dana)), 409],
      ['merged into themselves', await identities.POST(json('POST', `/api/people/${dana}/identities`, { merge_from: dana }), params(dana)), 409],
      ['an unknown person', await person.PATCH(json('PATCH', '/api/people/nobody', { name: 'x' }), params('nobody')), 404],
      ['an unknown role', await person.PATCH(json('PATCH', `/api/people/${dana}`, { role: 'admin' }), params(dana)), 400],
      ['an extra field', await people.POST(json('POST', '/api/people', { name: 'Eve', root: true }), { params: Promise.resolve({}) }), 400],
      ['a negative limit', await person.PATCH(json('PATCH', `/api/people/${dana}`, { limits: { messages_per_day: -1 } }), params(dana)), 400],
      ['not JSON', await people.POST(json('POST', '/api/people', '{"name":'), { params: Promise.resolve({}) }), 400],
    ];
    for (const [what, response, status] of refusals) expect(response.status, what).toBe(status);
    expect((await listPeople()).find((entry) => entry.id === dana)).toMatchObject({ role: 'trusted', name: 'Dana' });

    expect((await person.DELETE(new Request(`${base}/api/people/${dana}`, { method: 'DELETE' }), params(dana))).status).toBe(204);
    expect(await findPersonBySender('telegram:77')).toBeNull();
    expect(await sessionPeople(id)).toEqual([]);
  });

  it("the owner's Memory view shows whose conversation each memory came from, and filters by person", async () => {
    const fay = await personForSender({ sender: 'telegram:88', name: '@fay' });
    const hers = crypto.randomUUID();
    await insertSession({ id: hers, name: 'fay', personaName: 'mira', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    await addSessionPeople(hers, [fay.id]);
    await appendMemory({ personaName: 'mira', content: 'Fay keeps bees', sessionId: hers });
    await appendMemory({ personaName: 'mira', content: 'The house has a red door' });
    const list = async (query: string) => (await read(await memoriesRoute.GET(new Request(`${base}/api/memories?persona=mira${query}`), { params: Promise.resolve({}) }))).body.memories as { content: string; people: { id: string; name: string }[] }[];
    expect((await list('')).map((memory) => [memory.content, memory.people.map((person) => person.name)]).sort()).toEqual([
      ['Fay keeps bees', ['@fay']],
      ['The house has a red door', []],
    ]);
    expect((await list(`&person=${fay.id}`)).map((memory) => memory.content)).toEqual(['Fay keeps bees']);
    expect(await list('&person=nobody')).toEqual([]);
  });
});
