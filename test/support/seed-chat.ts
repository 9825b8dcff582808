// Writes `count` chat messages straight into a database file, for long-session tests and
// benchmarks (the session should be paused: its mind does not see them).
import Database from 'better-sqlite3';

export function seedChat(input: { databaseFile: string; sessionId: string; count: number }): void {
  const db = new Database(input.databaseFile);
  try {
    const insert = db.prepare("INSERT INTO messages (session_id, layer, tag, content, created_at, cycle_number, turn_id) VALUES (?, 'external', ?, ?, ?, 0, 'seeded')");
    db.transaction(() => {
      for (let index = 0; index < input.count; index++) {
        // Prisma stores DateTime as ISO text with an explicit offset.
        const at = new Date(Date.now() - (input.count - index) * 1000).toISOString().replace('Z', '+00:00');
        insert.run(input.sessionId, index % 2 ? 'ED_agent' : 'ED_user', `Message ${index}: ${'some words '.repeat(8)}`, at);
      }
    })();
  } finally {
    db.close();
  }
}
