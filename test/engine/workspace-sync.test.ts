// A session's workspace follows it to another machine (issue 31, requirement 4), on a real
// PostgreSQL, two data folders standing for two machines: what one pushes the other pulls (binary
// content, subfolders, removals mirrored), a symbolic link is neither followed nor synced, nothing
// unchanged is pushed twice, a workspace over the cap keeps its last copy and says so, hostile paths
// in the database land nowhere outside the workspace, and a push under a stale lease epoch is refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { closeDb, getDb } from '@/lib/store/db';
import { disableFencing, enableFencing, FencedWriteError, holdEpoch } from '@/lib/store/lease-fence';
import { closePgRaw, pgRaw } from '@/lib/store/pg-raw';
import { loadPersonaSnapshot, readWorkspaceSync, storePersonaSnapshot } from '@/lib/store/session-files';
import { insertSession } from '@/lib/store/sessions-repository';
import { workspaceDirFor } from '@/lib/tools/workspace';
import { WorkspaceSync } from '@/lib/tools/workspace-sync';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';

let database: TestPostgres;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-sync-'));
const machine = (name: string) => {
  process.env.AGENTCSD_DATA_DIR = path.join(root, name);
};
const sync = new WorkspaceSync({ owner: 'tester', capBytes: 64 * 1024 });

beforeAll(async () => {
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  process.env.AGENTCSD_PERSONAS_DIR = path.join(root, 'personas');
  machine('one');
  await getDb();
}, 60_000);

afterAll(async () => {
  await closePgRaw();
  await closeDb();
  delete process.env.AGENTCSD_DATABASE_URL;
  await database?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const newSession = () => insertSession({ id: randomUUID(), name: 'sync', personaName: 'p', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'active' });

function write(sessionId: string, file: string, content: string | Buffer) {
  const target = path.join(workspaceDirFor(sessionId), file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content);
}

function tree(sessionId: string): Record<string, string> {
  const dir = workspaceDirFor(sessionId);
  const out: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const absolute = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(absolute);
      else out[path.relative(dir, absolute)] = entry.isSymbolicLink() ? '(link)' : fs.readFileSync(absolute).toString('base64');
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

describe('workspace sync through the database', () => {
  it('what one machine pushes the other pulls, removals too; links are not followed; nothing unchanged is pushed again', async () => {
    const session = await newSession();
    machine('one');
    write(session.id, 'notes.txt', 'first notes\n');
    write(session.id, 'charts/plot.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
    fs.symlinkSync('/etc/passwd', path.join(workspaceDirFor(session.id), 'passwd'));
    expect(await sync.push(session.id)).toEqual({ pushed: 2, removed: 0, generation: 1 });
    expect(await sync.push(session.id)).toEqual({ generation: 1 }); // nothing changed: no new generation
    const made = tree(session.id);

    machine('two');
    expect(await sync.pull(session.id)).toEqual({ pulled: 2, generation: 1 });
    const { passwd: _link, ...withoutLink } = made;
    expect(tree(session.id)).toEqual(withoutLink);
    // Work goes on on machine two: one file removed, one added.
    fs.rmSync(path.join(workspaceDirFor(session.id), 'notes.txt'));
    write(session.id, 'report.md', '# Report\n');
    expect(await sync.push(session.id)).toEqual({ pushed: 1, removed: 1, generation: 2 });

    machine('one');
    expect(await sync.pull(session.id)).toEqual({ pulled: 2, generation: 2 });
    // The link was never synced: it stays on the machine that made it, and nowhere else.
    expect(Object.keys(tree(session.id)).sort()).toEqual(['charts/plot.png', 'passwd', 'report.md']);
    expect(await sync.pull(session.id)).toEqual({}); // already the newest
  });

  it('a workspace over the cap keeps its last copy within it, and the database says so', async () => {
    const session = await newSession();
    machine('one');
    write(session.id, 'small.txt', 'small');
    await sync.push(session.id);
    write(session.id, 'big.bin', Buffer.alloc(100 * 1024, 7));
    expect(await sync.push(session.id)).toEqual({ overCap: true });
    const pool = pgRaw(database.url);
    expect(await readWorkspaceSync(pool, session.id)).toMatchObject({ generation: 1, overCap: true, files: 2 });
    machine('three');
    await sync.pull(session.id);
    expect(Object.keys(tree(session.id))).toEqual(['small.txt']);
  });

  it('hostile paths stored in the database are written nowhere outside the workspace', async () => {
    const session = await newSession();
    machine('one');
    write(session.id, 'ok.txt', 'fine');
    await sync.push(session.id);
    const pool = pgRaw(database.url);
    for (const hostile of ['../../escaped.txt', '/etc/agentcsd-escaped', 'a/../../../escaped2.txt']) {
      await pool.query(`INSERT INTO session_files (session_id, kind, path, content, size) VALUES ($1, 'workspace', $2, 'x', 1)`, [session.id, hostile]);
    }
    await pool.query('UPDATE workspace_syncs SET generation = generation + 1 WHERE session_id = $1', [session.id]);
    machine('four');
    await sync.pull(session.id);
    expect(Object.keys(tree(session.id))).toEqual(['ok.txt']);
    for (const escaped of [path.join(root, 'four', 'escaped.txt'), path.join(root, 'escaped.txt'), '/etc/agentcsd-escaped', path.join(root, 'four', 'escaped2.txt'), path.join(root, 'four', 'workspaces', 'escaped2.txt')]) {
      expect(fs.existsSync(escaped), escaped).toBe(false);
    }
  });

  it('a push under a lease epoch that moved on is refused and changes nothing; the persona snapshot is kept with the session', async () => {
    const session = await newSession();
    machine('one');
    write(session.id, 'a.txt', 'a');
    await sync.push(session.id);
    await pgRaw(database.url).query(`INSERT INTO session_leases (session_id, owner, epoch) VALUES ($1, 'elsewhere', 5)`, [session.id]);
    enableFencing();
    try {
      holdEpoch(session.id, 4);
      write(session.id, 'late.txt', 'late');
      await expect(sync.push(session.id)).rejects.toBeInstanceOf(FencedWriteError);
      expect(await readWorkspaceSync(pgRaw(database.url), session.id)).toMatchObject({ generation: 1, files: 1 });
    } finally {
      disableFencing();
    }
    await storePersonaSnapshot(session.id, Buffer.from('# Persona as it was\n'));
    expect((await loadPersonaSnapshot(session.id))?.toString()).toBe('# Persona as it was\n');
  });
});
