// The turns said just before and just after others, in their own sessions (issue 49): a question's
// evidence is often the answer to the turn that names its topic ("How was the concert?" — "We
// loved it, the kids danced all night"), so recall scores a turn with its neighbours' words too.
// Only what was said (ED_user, ED_agent) counts as a turn; thoughts in between are skipped.
import { rawDb, statement } from '@/lib/store/raw-db';
import type { MessageHit } from './text-search';

export interface TurnNeighbours {
  /** The turn these are the neighbours of. */
  of: number;
  before: MessageHit | null;
  after: MessageHit | null;
}

type Row = { of: number; side: 'before' | 'after'; id: number; session_id: string; content: string; created_at: string };

const SQLITE = `WITH asked AS (SELECT value AS id FROM json_each(?))
  SELECT asked.id AS "of", 'before' AS side, n.id, n.session_id, n.content, n.created_at
  FROM asked JOIN messages m ON m.id = asked.id
  JOIN messages n ON n.id = (SELECT p.id FROM messages p WHERE p.session_id = m.session_id AND p.id < m.id AND p.tag IN ('ED_user', 'ED_agent') ORDER BY p.id DESC LIMIT 1)
  UNION ALL
  SELECT asked.id, 'after', n.id, n.session_id, n.content, n.created_at
  FROM asked JOIN messages m ON m.id = asked.id
  JOIN messages n ON n.id = (SELECT p.id FROM messages p WHERE p.session_id = m.session_id AND p.id > m.id AND p.tag IN ('ED_user', 'ED_agent') ORDER BY p.id LIMIT 1)`;

/**
 * The turn before and the turn after each hit in its session (null at a session's ends): read by
 * the search itself on PostgreSQL (a round trip saved), here in one statement on SQLite.
 */
export function turnNeighbours(hits: readonly MessageHit[]): TurnNeighbours[] {
  if (hits.every((hit) => hit.neighbours)) return hits.map((hit) => ({ of: hit.id, ...hit.neighbours! }));
  const ids = hits.map((hit) => hit.id);
  const rows = statement(rawDb(), SQLITE).all(JSON.stringify(ids)) as Row[];
  const byTurn = new Map<number, TurnNeighbours>(ids.map((id) => [id, { of: id, before: null, after: null }]));
  for (const row of rows) {
    const entry = byTurn.get(Number(row.of));
    if (!entry) continue;
    entry[row.side] = { id: Number(row.id), sessionId: row.session_id, content: row.content, createdAt: new Date(row.created_at), score: 0 };
  }
  return [...byTurn.values()];
}
