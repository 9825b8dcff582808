// Issue 42's migration, on a database as the last release left it: what exists belongs to the
// owner; each bound sender becomes a person of their own (trusted: they could approve cards
// before), once however many chats they had; their persona binding now means their own session;
// memories stay private to their session's people.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateDatabase } from './migrations';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-people-migration-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the people migration', () => {
  it('gives sessions to the owner and each bound sender a person with their identity', () => {
    // Every migration before people's, applied; then the rows of a running install.
    const before = path.join(root, 'before');
    fs.mkdirSync(before);
    for (const name of fs.readdirSync('prisma/migrations').filter((entry) => entry < '20261129000000_people' && !entry.endsWith('.toml'))) {
      fs.cpSync(path.join('prisma/migrations', name), path.join(before, name), { recursive: true });
    }
    const databaseFile = path.join(root, 'app.db');
    migrateDatabase({ databaseFile, migrationsDir: before });
    const database = new Database(databaseFile);
    for (const id of ['s1', 's2']) {
      database.prepare(`INSERT INTO sessions (id, name, persona_name, persona_hash, model_config, params, status) VALUES (?, ?, 'iris', 'h', '{}', '{}', 'active')`).run(id, id);
    }
    database.prepare(`INSERT INTO channels (id, kind, name, config) VALUES ('c1', 'telegram', 'phone', '{}'), ('c2', 'telegram', 'bot 2', '{}')`).run();
    const bind = database.prepare(`INSERT INTO channel_bindings (id, channel_id, sender, sender_name, address, session_id, persona) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    bind.run('b1', 'c1', 'telegram:1', '@alice', '1', 's1', null);
    bind.run('b2', 'c1', 'telegram:2', '@bob', '2', null, 'iris');
    bind.run('b3', 'c2', 'telegram:1', '@alice', '1', null, 'iris'); // alice on a second bot: one person
    const remember = database.prepare(`INSERT INTO memories (persona_name, scope, kind, content, content_hash, session_id) VALUES ('iris', 'long', 'fact', ?, ?, ?)`);
    remember.run('likes tea', 'h1', 's1');
    remember.run('likes tea', 'h2', 's2');
    remember.run('the house rule', 'h3', null);
    database.close();

    migrateDatabase({ databaseFile });
    const after = new Database(databaseFile, { readonly: true });
    const all = (sql: string) => after.prepare(sql).all();
    expect(all(`SELECT id, name, role FROM people ORDER BY id`)).toEqual([
      { id: 'owner', name: 'Owner', role: 'owner' },
      { id: 'p:telegram:1', name: '@alice', role: 'trusted' },
      { id: 'p:telegram:2', name: '@bob', role: 'trusted' },
    ]);
    expect(all(`SELECT person_id, kind, sender FROM person_identities ORDER BY sender`)).toEqual([
      { person_id: 'p:telegram:1', kind: 'telegram', sender: 'telegram:1' },
      { person_id: 'p:telegram:2', kind: 'telegram', sender: 'telegram:2' },
    ]);
    expect(all(`SELECT id, person_id FROM channel_bindings ORDER BY id`)).toEqual([
      { id: 'b1', person_id: 'p:telegram:1' },
      { id: 'b2', person_id: 'p:telegram:2' },
      { id: 'b3', person_id: 'p:telegram:1' },
    ]);
    // The owner's sessions; alice was bound to s1, so it is hers too.
    expect(all(`SELECT session_id, person_id FROM session_people ORDER BY session_id, person_id`)).toEqual([
      { session_id: 's1', person_id: 'owner' },
      { session_id: 's1', person_id: 'p:telegram:1' },
      { session_id: 's2', person_id: 'owner' },
    ]);
    // Memories keep their session and are private to its people (shared ones have none).
    expect(all(`SELECT session_id, shared, owner_key FROM memories ORDER BY id`)).toEqual([
      { session_id: 's1', shared: 0, owner_key: 'owner,p:telegram:1' },
      { session_id: 's2', shared: 0, owner_key: 'owner' },
      { session_id: null, shared: 0, owner_key: '' },
    ]);
    after.close();
  });
});
