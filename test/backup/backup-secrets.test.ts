// A backup with "secrets left out" leaves out exactly what the settings export blanks (issue 72
// §2.3): MCP servers' env and header values and OAuth client secrets, and tool.postgres connection
// strings in both graph tables (a persona's, a session's snapshot) — besides the API keys and
// webhook keys it always took. The archive is grepped, unpacked, for every such value; with a
// passphrase they come back on restore; without one the restore names each, and the names of the
// variables and headers stay to type again. Real store (both kinds), real archive.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { takeBackup } from '@/lib/backup/take-backup';
import { restoreBackup } from '@/lib/backup/restore-backup';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import { readPersonaGraph, readSessionGraph, snapshotSessionGraph, writePersonaGraph } from '@/lib/capabilities/graph-store';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { exportSettings } from '@/lib/http/settings-travel';
import { closeDb } from '@/lib/store/db';
import { insertSession } from '@/lib/store/sessions-repository';
import { readMcpSettings, writeMcpSettings } from '@/lib/store/settings-repository';
import type { AgentGraph } from '@/lib/capabilities/validate';
import { databaseUrl } from '@/test/support/postgres';
import { storeOnPostgres, useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { iris: '# Iris\nKind.\n' } });
const savedEnv = { ...process.env };
afterAll(async () => {
  await closeDb();
  process.env = savedEnv;
});

const SECRETS = {
  env: 'ghp_ENV-SECRET-7f3a',
  header: 'Bearer HEADER-SECRET-91c2',
  clientSecret: 'OAUTH-CLIENT-SECRET-44d0',
  personaConnection: 'postgres://app:PERSONA-PG-SECRET@127.0.0.1:5/shop',
  sessionConnection: 'postgres://app:SESSION-PG-SECRET@127.0.0.1:5/shop',
};

function withPostgres(connection: string): AgentGraph {
  const graph = defaultGraph('iris', []);
  const core = graph.nodes.find((node) => node.type === 'agent.core')!;
  return { ...graph, nodes: [...graph.nodes, { id: 'pg', type: 'tool.postgres', config: { connection } }], edges: [...graph.edges, { id: 'e-pg', source: core.id, target: 'pg' }] };
}

function freshTarget(name: string): void {
  process.env.AGENTCSD_DATA_DIR = path.join(dirs.root, name, 'data');
  process.env.AGENTCSD_PERSONAS_DIR = path.join(dirs.root, name, 'personas');
  process.env.AGENTCSD_SKILLS_DIR = path.join(dirs.root, name, 'skills');
  if (storeOnPostgres) process.env.AGENTCSD_DATABASE_URL = databaseUrl(inject('postgresStoreUrl'), `agentcsd_restore_${randomBytes(5).toString('hex')}`);
}

describe('what the export blanks, a backup leaves out', () => {
  const bare = () => path.join(dirs.root, 'backups', 'bare.tar.gz');
  const sealed = () => path.join(dirs.root, 'backups', 'sealed.tar.gz');
  const sessionId = '5e55a1a0-0000-4000-8000-000000000001';

  it('an archive without secrets holds none of the values the export masks', async () => {
    await writeMcpSettings({
      mcpServers: {
        files: { command: 'npx', args: ['server-files'], env: { GITHUB_TOKEN: SECRETS.env } },
        remote: { type: 'http', url: 'https://mcp.example.test/mcp', headers: { Authorization: SECRETS.header }, oauth: { client_id: 'agentcsd', client_secret: SECRETS.clientSecret } },
      },
      tools: {},
      disabled: [],
    });
    await writePersonaGraph('iris', withPostgres(SECRETS.personaConnection));
    await insertSession({ id: sessionId, name: 'Shop', personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'paused' });
    await snapshotSessionGraph(sessionId, withPostgres(SECRETS.sessionConnection), false);

    // What the export leaves out is the list to grep for (a value it shows would be a leak of its own).
    const exported = JSON.stringify(await exportSettings());
    for (const value of [SECRETS.env, SECRETS.header, SECRETS.clientSecret]) expect(exported).not.toContain(value);

    await takeBackup({ to: bare() });
    await takeBackup({ to: sealed(), passphrase: 'a long enough passphrase', kdfCost: { n: 2 ** 14 } });
    const unpacked = execFileSync('tar', ['-xzOf', bare()], { maxBuffer: 512 * 1024 * 1024 });
    for (const [what, value] of Object.entries(SECRETS)) expect(unpacked.includes(value), what).toBe(false);
    // The control: the names around them are there (the grep reads the database inside).
    expect(unpacked.includes('GITHUB_TOKEN')).toBe(true);
    expect(unpacked.includes('mcp.example.test')).toBe(true);
    const sealedBytes = execFileSync('tar', ['-xzOf', sealed()], { maxBuffer: 512 * 1024 * 1024 });
    for (const [what, value] of Object.entries(SECRETS)) expect(sealedBytes.includes(value), what).toBe(false);
    await closeDb();
  }, 60_000);

  it('restored with the passphrase, every value is back', async () => {
    freshTarget('sealed');
    await restoreBackup({ from: sealed(), passphrase: 'a long enough passphrase' });
    const mcp = await readMcpSettings();
    expect(mcp.mcpServers.files).toMatchObject({ env: { GITHUB_TOKEN: SECRETS.env } });
    expect(mcp.mcpServers.remote).toMatchObject({ headers: { Authorization: SECRETS.header }, oauth: { client_id: 'agentcsd', client_secret: SECRETS.clientSecret } });
    expect((await readPersonaGraph('iris'))!.nodes.find((node) => node.id === 'pg')!.config).toEqual({ connection: SECRETS.personaConnection });
    expect((await readSessionGraph(sessionId))!.graph.nodes.find((node) => node.id === 'pg')!.config).toEqual({ connection: SECRETS.sessionConnection });
    await closeDb();
  }, 60_000);

  it('restored without them, each is named to type again and the names stay', async () => {
    freshTarget('bare');
    const result = await restoreBackup({ from: bare() });
    expect(result.toTypeAgain).toEqual(
      expect.arrayContaining([
        'MCP server “files”: its variable GITHUB_TOKEN',
        'MCP server “remote”: its header Authorization',
        'MCP server “remote”: its OAuth client secret',
        'PostgreSQL connection in the graph of persona “iris”',
        'PostgreSQL connection of session “Shop”',
      ]),
    );
    const mcp = await readMcpSettings();
    expect(mcp.mcpServers.files).toMatchObject({ env: { GITHUB_TOKEN: '' } });
    expect(mcp.mcpServers.remote).toMatchObject({ headers: { Authorization: '' }, oauth: { client_id: 'agentcsd' } });
    expect((await readPersonaGraph('iris'))!.nodes.find((node) => node.id === 'pg')!.config).toEqual({});
    await closeDb();
  }, 60_000);
});
