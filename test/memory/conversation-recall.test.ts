// Recall of what was said, ranked as a conversation (issue 49), on the real store — SQLite here,
// PostgreSQL in the postgres project: an answer that repeats none of the question's words is found
// through the turn before it (thoughts between the two skipped, never across sessions, never from a
// session the conversation may not read), the person the query names and the date it names are
// favoured, and `why` says so.
import { describe, expect, it } from 'vitest';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { recall } from '@/lib/memory/recall';
import { getDb } from '@/lib/store/db';
import { insertSession } from '@/lib/store/sessions-repository';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();

async function session(persona: string): Promise<string> {
  const id = crypto.randomUUID();
  await insertSession({ id, name: 'c', personaName: persona, personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
  return id;
}

/** Turns in order, a second apart from `at`; a thought (ID_quiet) where the text starts with "~". */
async function say(sessionId: string, at: string, lines: string[]): Promise<number[]> {
  const db = await getDb();
  const ids: number[] = [];
  for (const [index, line] of lines.entries()) {
    const thought = line.startsWith('~');
    const row = await db.message.create({
      data: { sessionId, layer: thought ? 'internal' : 'external', tag: thought ? 'ID_quiet' : index % 2 ? 'ED_agent' : 'ED_user', content: thought ? line.slice(1) : line, cycleNumber: 0, createdAt: new Date(new Date(at).getTime() + index * 1000) },
    });
    ids.push(row.id);
  }
  return ids;
}

const filler = (n: number) => Array.from({ length: n }, (_, index) => `Ana: the weather report number ${index} says rain`);

describe('recall of a conversation', () => {
  it('finds the answer through the question before it, skipping thoughts, within its session only', async () => {
    const first = await session('vera');
    const [, question, , answer] = await say(first, '2023-05-08T10:00:00Z', ['Ana: morning!', 'Vera: How was the concert on Saturday?', '~she sounds tired', 'Ana: We loved it, the kids danced until midnight', 'Vera: lovely']);
    const second = await session('vera');
    const [opening] = await say(second, '2023-05-09T10:00:00Z', ['Ana: the concert poster is still up', ...filler(3)]);
    const query = 'How did they like the concert?';

    const lexical = await recall({ personaName: 'vera', query, k: 10, embedder: null, weights: { neighbour: 0, speaker: 0, date: 0 } });
    expect(lexical.map((hit) => hit.id)).not.toContain(answer);

    const hits = await recall({ personaName: 'vera', query, k: 10, embedder: null });
    expect(hits.map((hit) => hit.id)).toEqual(expect.arrayContaining([question, answer, opening]));
    expect(hits.find((hit) => hit.id === answer)!.why).toMatch(/next to a match/);
    // The thought between them is no turn; the last turn of the first session is not the second's neighbour.
    const db = await getDb();
    const recalled = await db.message.findMany({ where: { id: { in: hits.map((hit) => hit.id) } }, select: { tag: true } });
    expect(recalled.every((row) => row.tag === 'ED_user' || row.tag === 'ED_agent')).toBe(true);
  });

  it('lends nothing from a session the conversation may not read', async () => {
    const mine = await session('noor');
    const theirs = await session('noor');
    await say(mine, '2023-05-08T10:00:00Z', ['Ana: hello', 'Noor: hi Ana']);
    const [, secret] = await say(theirs, '2023-05-08T10:00:00Z', ['Bo: how was the concert?', 'Noor: Bo, the password is hunter2']);
    // A session the person has no part in: issue 42's scope keeps it out, neighbours included.
    const db = await getDb();
    const { personForSender } = await import('@/lib/store/people-repository');
    const ana = await personForSender({ sender: 'telegram:5', name: '@ana', role: 'trusted' });
    const bo = await personForSender({ sender: 'telegram:6', name: '@bo', role: 'trusted' });
    await db.sessionPerson.createMany({ data: [{ sessionId: mine, personId: ana.id }, { sessionId: theirs, personId: bo.id }] });
    const hits = await recall({ personaName: 'noor', query: 'how was the concert?', k: 10, embedder: null, forSession: mine });
    expect(hits.map((hit) => hit.id)).not.toContain(secret);
    expect(hits).toEqual([]);
  });

  it('favours the speaker the query names and what was said around the date it names', async () => {
    const id = await session('lior');
    const [mel, caro] = await say(id, '2023-05-08T10:00:00Z', ['Mel: I started painting landscapes', 'Caroline: I started painting portraits']);
    const [june] = await say(id, '2023-07-03T10:00:00Z', ['Mel: we went camping at the lake last week', 'Caroline: sounds great']);
    const [may] = await say(id, '2023-05-20T10:00:00Z', ['Mel: we went camping in the hills', 'Caroline: fun']);

    const painting = await recall({ personaName: 'lior', query: 'What did Caroline start painting?', k: 2, embedder: null });
    expect(painting.map((hit) => hit.id)).toEqual([caro, mel]);
    expect(painting[0]!.why).toMatch(/said by caroline/);

    const camping = (await recall({ personaName: 'lior', query: 'Where did Mel go camping in June?', k: 4, embedder: null, now: new Date('2023-08-01T00:00:00Z') })).map((hit) => hit.id);
    expect(camping[0]).toBe(june);
    expect(camping.indexOf(may!)).toBeGreaterThan(0);
    const unboosted = (await recall({ personaName: 'lior', query: 'Where did Mel go camping?', k: 4, embedder: null })).map((hit) => hit.id);
    expect(unboosted.indexOf(may!)).toBeLessThan(unboosted.indexOf(june!)); // shorter, so BM25 alone puts May first
    expect((await recall({ personaName: 'lior', query: 'camping in June', k: 1, embedder: null, now: new Date('2023-08-01T00:00:00Z') }))[0]!.why).toMatch(/said around june/);
  });
});
