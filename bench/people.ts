// Recall scoped by person (issue 42): 10k stored items (90% messages, 10% memories) over 100
// sessions of one persona that belong to 50 people, two sessions each. The same queries are asked
// alternately without scoping (the owner's view, today's recall) and for one person's session
// (only what its people may read), in one run on one store: p50/p99 side by side and their ratio.
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { appendMemory } from '@/lib/memory/memory-store';
import { recall } from '@/lib/memory/recall';
import { getDb } from '@/lib/store/db';
import { addSessionPeople } from '@/lib/store/people-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { freshStore, insertMessages, sentences, words } from './memory';
import { formatMs, median, percentile } from './stats';

export interface ScopedRecall {
  store: 'sqlite' | 'postgres';
  size: number;
  people: number;
  unscoped: number[];
  scoped: number[];
}

export async function benchScopedRecall(options: { size: number; people: number; queries: number; postgresUrl?: string }): Promise<ScopedRecall> {
  const done = await freshStore(options.postgresUrl);
  const db = await getDb();
  const persona = 'shared';
  const people = Array.from({ length: options.people }, (_, index) => `person-${index}`);
  await db.person.createMany({ data: people.map((id) => ({ id, name: id, role: 'trusted' })) });
  const sessions: string[] = [];
  for (let index = 0; index < options.people * 2; index++) {
    const id = crypto.randomUUID();
    await insertSession({ id, name: `s${index}`, personaName: persona, personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    await addSessionPeople(id, [people[index % options.people]!]);
    sessions.push(id);
  }
  const sentence = sentences(11);
  const messageCount = Math.round(options.size * 0.9);
  await insertMessages(
    Array.from({ length: messageCount }, (_, index) => ({ sessionId: sessions[index % sessions.length]!, tag: index % 2 ? ('ED_agent' as const) : ('ED_user' as const), content: sentence(), createdAt: new Date(Date.UTC(2026, 0, 1) + index * 60_000) })),
  );
  for (let index = 0; index < options.size - messageCount; index++) await appendMemory({ personaName: persona, content: `${sentence()} #${index}`, sessionId: sessions[index % sessions.length]! });
  if (options.postgresUrl) await db.$executeRawUnsafe('ANALYZE messages, memories');
  const unscoped: number[] = [];
  const scoped: number[] = [];
  for (let index = 0; index < options.queries; index++) {
    const query = `what about the ${words[index % words.length]} and the ${words[(index * 7) % words.length]}?`;
    // Alternating, so both see the same machine at the same moment.
    for (const [samples, forSession] of index % 2 ? ([[scoped, sessions[0]], [unscoped, undefined]] as const) : ([[unscoped, undefined], [scoped, sessions[0]]] as const)) {
      const begun = performance.now();
      await recall({ personaName: persona, query, k: 10, embedder: null, ...(forSession && { forSession }) });
      samples.push(performance.now() - begun);
    }
  }
  await done();
  return { store: options.postgresUrl ? 'postgres' : 'sqlite', size: options.size, people: options.people, unscoped, scoped };
}

export function scopedRecallTable(results: readonly ScopedRecall[]): string {
  return [
    '| store | stored items | people | recall | p50 ms | p99 ms |',
    '|---|---|---|---|---|---|',
    ...results.flatMap((result) => [
      `| ${result.store === 'postgres' ? 'PostgreSQL' : 'SQLite'} | ${result.size.toLocaleString('en-US')} | ${result.people} | the persona's all (unscoped) | ${formatMs(median(result.unscoped))} | ${formatMs(percentile(result.unscoped, 99))} |`,
      `| ${result.store === 'postgres' ? 'PostgreSQL' : 'SQLite'} | ${result.size.toLocaleString('en-US')} | ${result.people} | one person's conversation (scoped) | ${formatMs(median(result.scoped))} (${(median(result.scoped) / median(result.unscoped)).toFixed(2)}×) | ${formatMs(percentile(result.scoped, 99))} (${(percentile(result.scoped, 99) / percentile(result.unscoped, 99)).toFixed(2)}×) |`,
    ]),
  ].join('\n');
}

// Alone: `node --import tsx bench/people.ts` (SQLite).
if (process.argv[1]?.endsWith('bench/people.ts')) {
  console.log(scopedRecallTable([await benchScopedRecall({ size: 10_000, people: 50, queries: 200 })]));
}
