// The same Prisma models on both databases (issue 19, the store's first part): the PostgreSQL
// schema is the SQLite one with its provider changed (never edited apart), its migrations apply
// once and in turn when processes start together, and every model writes and reads back the same
// values through the SQLite client and the PostgreSQL client.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSchema } from '@/scripts/postgres-schema';
import { closeDb, getDb } from '@/lib/store/db';
import { listMigrations } from '@/lib/store/migrations';
import { migratePostgres, openPostgresDb, postgresMigrationsDir, type PostgresDb } from '@/lib/store/postgres-db';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let database: TestPostgres;
beforeAll(async () => {
  database = await startPostgres();
}, 60_000);
afterAll(async () => {
  await closeDb();
  await database?.stop();
});

const at = new Date('2026-11-23T12:34:56.789Z');
const sessionId = '00000000-0000-4000-8000-0000000000aa';

/** One row per model, through whichever client (their model APIs are the same). */
async function writeAndReadEveryModel(db: PostgresDb) {
  const session = await db.session.create({ data: { id: sessionId, name: 'both', personaName: 'iris', personaHash: 'h', modelConfig: '{"c_model":{}}', params: '{}', status: 'active', createdAt: at, lastActivityAt: at } });
  const message = await db.message.create({ data: { sessionId, layer: 'external', tag: 'ED_user', content: 'héllo 👋 — ünïcode', cycleNumber: 3, turnId: 't1', spontaneous: true, createdAt: at } });
  const rows = {
    session,
    message: { ...message, id: 0 },
    mood: { ...(await db.moodAndCriteria.create({ data: { sessionId, mood: 'calm', criteria: 'brief', cycleNumber: 3, createdAt: at } })), id: 0 },
    summary: { ...(await db.contextSummary.create({ data: { sessionId, layer: 'subconscious', summary: 's', fromCycle: 1, toCycle: 10, createdAt: at } })), id: 0 },
    llmCall: { ...(await db.llmCall.create({ data: { sessionId, layer: 'internal', backend: 'anthropic', model: 'claude-sonnet-5-5', durationMs: 12, firstTokenMs: 5, inputTokens: 100, outputTokens: 20, cacheReadTokens: 80, cacheWriteTokens: 10, costUsd: 0.000125, finishReason: 'stop', startedAt: at } })), id: 0 },
    setting: { ...(await db.setting.create({ data: { key: 'models', value: '{"a":1}' } })), updatedAt: null },
    turn: await db.agentTurn.create({ data: { turnId: 't1', sessionId, status: 'open', cycleNumber: 3, answering: '[1]', prompt: '{}', createdAt: at, taskId: 'task-1' } }),
    step: { ...(await db.agentStep.create({ data: { sessionId, turnId: 't1', step: 0, assistantText: 'thinking', createdAt: at } })), id: 0 },
    toolCall: await db.toolCall.create({ data: { id: 'call-1', sessionId, turnId: 't1', taskId: 'task-1', traceId: 'trace', step: 0, position: 0, providerCallId: 'p1', name: 'bash', args: '{"command":"ls"}', argsHash: 'abc', approval: 'ask', status: 'succeeded', result: 'ok', exitCode: 0, createdAt: at, decidedAt: at, startedAt: at, finishedAt: at } }),
    rule: await db.toolRule.create({ data: { id: 'rule-1', scope: 'persona', personaName: 'iris', tool: 'bash', effect: 'allow', matcher: '{}', createdAt: at } }),
    task: await db.task.create({ data: { id: 'task-1', sessionId, goal: 'g', constraints: '{}', status: 'running', costUsd: 0.5, costUnknown: true, traceId: 'trace', createdAt: at, startedAt: at, updatedAt: at } }),
    memory: { ...(await db.memory.create({ data: { personaName: 'iris', scope: 'persona', kind: 'fact', content: 'likes tea', contentHash: 'x', importance: 0.75, pinned: true, sessionId, createdAt: at, updatedAt: at, validTo: at } })), id: 0 },
    vector: await db.memoryVector.create({ data: { itemKind: 'memory', itemId: 1, personaName: 'iris', model: 'm', dims: 2, vector: new Uint8Array(Buffer.from(new Float32Array([0.5, -1]).buffer)) } }),
    consolidation: { ...(await db.consolidation.create({ data: { sessionId, personaName: 'iris', fromMessageId: 1, throughMessageId: 2, status: 'done', factsAdded: 1, costUsd: null, startedAt: at, finishedAt: at } })), id: 0 },
    graph: await db.capabilityGraph.create({ data: { personaName: 'iris', graph: '{"nodes":[]}', updatedAt: at } }),
    snapshot: await db.sessionCapabilities.create({ data: { sessionId, graph: '{}', fromDefault: true } }),
    channel: await db.channel.create({ data: { id: 'ch-1', kind: 'irc', name: 'libera', config: '{"host":"irc.example"}', createdAt: at, updatedAt: at } }),
    pairing: await db.channelPairing.create({ data: { code: 'K7Q2MX', channelId: 'ch-1', sender: 'irc:ana!a@h', senderName: 'ana', address: 'ana', firstText: 'hola', expiresAt: at, createdAt: at } }),
    binding: await db.channelBinding.create({ data: { id: 'b-1', channelId: 'ch-1', sender: 'irc:ana!a@h', senderName: 'ana', address: 'ana', sessionId, push: 'cards', quietHours: '{"from":"22:00","to":"07:00"}', createdAt: at } }),
    offset: await db.channelOffset.create({ data: { channelId: 'ch-1', value: '12345', updatedAt: at } }),
    schedule: await db.schedule.create({ data: { id: 'sch-1', sessionId, name: 'inbox', kind: 'cron', expression: '0 8 * * 1-5', timeZone: 'Europe/Madrid', action: '{"kind":"message","text":"x"}', createdBy: 'agent', nextFireAt: at, lastFireAt: at, lastResult: 'message sent', failures: 1, createdAt: at, updatedAt: at } }),
    hook: await db.hook.create({ data: { id: 'hook-1', sessionId, name: 'ci', secret: 's3cret', action: '{"kind":"message"}', createdAt: at } }),
    delivery: { ...(await db.hookDelivery.create({ data: { hookId: 'hook-1', deliveryId: 'd-1', receivedAt: at } })), id: 0 },
    person: await db.person.upsert({ where: { id: 'owner' }, create: { id: 'owner', name: 'Owner', role: 'owner', createdAt: at }, update: { name: 'Owner', role: 'owner', limits: '{"messages_per_day":50}', createdAt: at } }),
    identity: await db.personIdentity.create({ data: { id: 'pi-1', personId: 'owner', kind: 'irc', sender: 'irc:ana!a@h', name: 'ana', createdAt: at } }),
    seat: await db.sessionPerson.create({ data: { sessionId, personId: 'owner', joinedAt: at } }),
    inbound: await db.channelInbound.create({ data: { messageId: message.id, sessionId, bindingId: 'b-1', createdAt: at } }).then((row) => ({ ...row, messageId: 0 })),
    upload: await db.upload.create({ data: { id: 'up-1', sessionId, name: 'photo.jpg', mimeType: 'image/jpeg', kind: 'image', size: 2048, sha256: 'ab12', path: 'uploads/photo.jpg', width: 64, height: 48, note: 'sent as image/png, but the file is image/jpeg', createdAt: at } }),
    uploadBlob: await db.uploadBlob.create({ data: { uploadId: 'up-1', bytes: new Uint8Array([0xff, 0xd8, 0x00, 0x01]) } }).then((row) => ({ ...row, bytes: Buffer.from(row.bytes).toString('hex') })),
    outbox: { ...(await db.channelOutbox.create({ data: { channelId: 'ch-1', address: 'ana', payload: '{"text":"hi"}', state: 'sent', providerMessageId: '77', attempts: 1, nextAt: at, createdAt: at, sentAt: at } })), id: 0 },
  };
  const loaded = await db.session.findUniqueOrThrow({ where: { id: sessionId }, include: { messages: true, toolCalls: true, tasks: true } });
  // Deleting the session takes what belongs to it (foreign keys with cascade on both).
  await db.session.delete({ where: { id: sessionId } });
  const left = { messages: await db.message.count(), toolCalls: await db.toolCall.count(), tasks: await db.task.count(), memories: await db.memory.count(), bindings: await db.channelBinding.count() };
  return { rows, loaded: { ...loaded, messages: loaded.messages.map((row) => ({ ...row, id: 0 })) }, left };
}

describe('the store on PostgreSQL', () => {
  it('the PostgreSQL schema is the SQLite schema with its provider changed, nothing else', () => {
    const sqlite = fs.readFileSync('prisma/schema.prisma', 'utf8');
    const derived = postgresSchema(sqlite);
    const strip = (text: string) => text.split('\n').filter((line) => !/provider\s*=|output\s*=|^\/\/ GENERATED/.test(line)).join('\n');
    expect(strip(derived)).toBe(strip(sqlite));
    expect(fs.readFileSync('prisma/postgres/schema.prisma', 'utf8')).toBe(derived); // what postinstall wrote is current
  });

  it('migrations apply once, and in turn when three connections start them at once', async () => {
    const url = database.urlFor('store_migrations');
    const admin = await openPostgresDb(database.url); // creates nothing but proves the default database migrates too
    await admin.$executeRawUnsafe('CREATE DATABASE store_migrations');
    await admin.$disconnect();
    const results = await Promise.all([migratePostgres(url), migratePostgres(url), migratePostgres(url)]);
    const names = listMigrations(postgresMigrationsDir()).map((migration) => migration.name);
    expect(results.map((result) => result.applied.length).sort()).toEqual([0, 0, names.length]);
    expect((await migratePostgres(url)).alreadyApplied).toEqual(names);
  }, 60_000);

  it('every model writes and reads back the same values through the SQLite and the PostgreSQL client', async () => {
    const onSqlite = await writeAndReadEveryModel((await getDb()) as unknown as PostgresDb);
    const db = await openPostgresDb(database.url);
    try {
      const onPostgres = await writeAndReadEveryModel(db);
      expect(onPostgres).toEqual(onSqlite);
      expect(onPostgres.left).toEqual({ messages: 0, toolCalls: 0, tasks: 0, memories: 1, bindings: 0 });
      expect(onPostgres.rows.message.content).toBe('héllo 👋 — ünïcode');
    } finally {
      await db.$disconnect();
    }
  }, 60_000);
});
