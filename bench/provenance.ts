// The provenance checks (issue 44) on a store of 10k messages over 100 sessions of one persona, half
// of them written from untrusted content (the later half of every other session): per turn, the
// clean start and the provenance of the recalled hits (one statement); per tool step that would
// send data out, the turn's mark. Each timed alone, p50/p99 over the queries.
import { provenanceOf, recall, type RecallHit } from '@/lib/memory/recall';
import { getDb } from '@/lib/store/db';
import { markSessionUntrusted, sessionUntrustedSource, startCleanTurn } from '@/lib/store/untrusted-repository';
import { freshStore, insertMessages, pausedSessions, sentences, words } from './memory';
import { formatMs, median, percentile } from './stats';

export interface ProvenanceResult {
  store: 'sqlite' | 'postgres';
  hits: number;
  perTurn: number[];
  perStart: number[];
  perStep: number[];
}

export async function benchProvenance(options: { size: number; queries: number; postgresUrl?: string }): Promise<ProvenanceResult> {
  const done = await freshStore(options.postgresUrl);
  const db = await getDb();
  const persona = 'reader';
  const sessions = await pausedSessions(persona, 100);
  const sentence = sentences(7);
  const half = Math.floor(options.size / 2);
  const batch = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, offset) => ({ sessionId: sessions[(from + offset) % sessions.length]!, tag: (from + offset) % 2 ? ('ED_agent' as const) : ('ED_user' as const), content: sentence(), createdAt: new Date(Date.UTC(2026, 0, 1) + (from + offset) * 60_000) }));
  await insertMessages(batch(0, half));
  const marked = sessions.filter((_, index) => index % 2 === 0);
  const middle = (await db.message.aggregate({ _max: { id: true } }))._max.id ?? 0;
  await insertMessages(batch(half, options.size));
  await db.message.updateMany({ where: { sessionId: { in: marked }, id: { gt: middle } }, data: { untrustedSource: 'the web host news.example' } });
  if (options.postgresUrl) await db.$executeRawUnsafe('ANALYZE messages, sessions');
  const perTurn: number[] = [];
  const perStart: number[] = [];
  const perStep: number[] = [];
  let hits = 0;
  for (let index = 0; index < options.queries; index++) {
    const found: RecallHit[] = await recall({ personaName: persona, query: `the ${words[index % words.length]} and the ${words[(index * 7) % words.length]}`, k: 12, embedder: null });
    hits += found.length;
    let begun = performance.now();
    await provenanceOf(found);
    perTurn.push(performance.now() - begun);
    const session = sessions[index % sessions.length]!;
    await markSessionUntrusted(session, 'the web host news.example'); // the last turn read something
    begun = performance.now();
    await startCleanTurn(session);
    perStart.push(performance.now() - begun);
    begun = performance.now();
    await sessionUntrustedSource(session);
    perStep.push(performance.now() - begun);
  }
  await done();
  return { store: options.postgresUrl ? 'postgres' : 'sqlite', hits: hits / options.queries, perTurn, perStart, perStep };
}

export function provenanceTable(results: ProvenanceResult[]): string {
  return [
    '| store | check | p50 | p99 |',
    '| --- | --- | --- | --- |',
    ...results.flatMap((result) => [
      `| ${result.store} | per turn: provenance of the recalled hits (${result.hits.toFixed(1)} on average) | ${formatMs(median(result.perTurn))} | ${formatMs(percentile(result.perTurn, 99))} |`,
      `| ${result.store} | per turn: the clean start (one UPDATE) | ${formatMs(median(result.perStart))} | ${formatMs(percentile(result.perStart, 99))} |`,
      `| ${result.store} | per outbound step: the turn's mark | ${formatMs(median(result.perStep))} | ${formatMs(percentile(result.perStep, 99))} |`,
    ]),
  ].join('\n');
}
