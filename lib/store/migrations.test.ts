import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { closeDb, getDb } from './db';
import { listMigrations, migrateDatabase } from './migrations';

const dirs = useTempAppDirs();

describe('migrations', () => {
  it('creates the database, records each migration the way Prisma does, and is idempotent', () => {
    const databaseFile = path.join(dirs.dataDir, 'fresh.db');
    const first = migrateDatabase({ databaseFile });
    const names = listMigrations(path.resolve('prisma/migrations')).map((migration) => migration.name);
    expect(first.applied).toEqual(names);
    expect(names.length).toBeGreaterThan(0);

    const second = migrateDatabase({ databaseFile });
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toEqual(names);

    const database = new Database(databaseFile, { readonly: true });
    const rows = database
      .prepare('SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name')
      .all() as { migration_name: string; checksum: string; finished_at: number; applied_steps_count: number }[];
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    database.close();
    const sql = fs.readFileSync(path.resolve('prisma/migrations', names[0]!, 'migration.sql'));
    expect(rows[0]).toMatchObject({
      migration_name: names[0],
      checksum: createHash('sha256').update(sql).digest('hex'),
      applied_steps_count: 1,
    });
    expect(typeof rows[0]!.finished_at).toBe('number');
    expect((fs.statSync(databaseFile).mode & 0o777).toString(8)).toBe('600');
  });

  it('refuses to continue over a migration that failed half-way', () => {
    const databaseFile = path.join(dirs.dataDir, 'failed.db');
    migrateDatabase({ databaseFile });
    const database = new Database(databaseFile);
    database.prepare('UPDATE _prisma_migrations SET finished_at = NULL').run();
    database.close();
    expect(() => migrateDatabase({ databaseFile })).toThrow(/half-migrated/);
  });

  it('produces a schema every Prisma model round-trips through', async () => {
    const db = await getDb();
    const session = await db.session.create({
      data: {
        id: '00000000-0000-4000-8000-000000000001',
        name: 'round trip',
        personaName: 'p',
        personaHash: 'h',
        modelConfig: '{}',
        params: '{}',
        status: 'active',
      },
    });
    const message = await db.message.create({
      data: { sessionId: session.id, layer: 'external', tag: 'ED_user', content: 'hola', cycleNumber: 3, turnId: 't1', spontaneous: true },
    });
    const mood = await db.moodAndCriteria.create({ data: { sessionId: session.id, mood: 'calm', criteria: 'be brief', cycleNumber: 3 } });
    const summary = await db.contextSummary.create({
      data: { sessionId: session.id, layer: 'subconscious', summary: 's', fromCycle: 1, toCycle: 10 },
    });
    const call = await db.llmCall.create({
      data: {
        sessionId: session.id,
        layer: 'subconscious',
        backend: 'anthropic',
        model: 'claude-haiku-4-5',
        durationMs: 12,
        firstTokenMs: 5,
        inputTokens: 100,
        outputTokens: 20,
        cacheReadTokens: 80,
        cacheWriteTokens: 10,
        costUsd: 0.0001,
        finishReason: 'stop',
      },
    });
    const setting = await db.setting.create({ data: { key: 'k', value: '{"a":1}' } });

    const loaded = await db.session.findUniqueOrThrow({
      where: { id: session.id },
      include: { messages: true, moodAndCriteria: true, contextSummaries: true, llmCalls: true },
    });
    expect(loaded.messages).toEqual([message]);
    expect(loaded.moodAndCriteria).toEqual([mood]);
    expect(loaded.contextSummaries).toEqual([summary]);
    expect(loaded.llmCalls).toEqual([call]);
    expect(await db.setting.findUniqueOrThrow({ where: { key: 'k' } })).toEqual(setting);

    // Foreign keys are on: deleting a session removes everything that belongs to it.
    await db.session.delete({ where: { id: session.id } });
    expect(await db.message.count()).toBe(0);
    expect(await db.llmCall.count()).toBe(0);
    await closeDb();
  });
});
