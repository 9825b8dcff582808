// Issue 63 §4: the settings travel. Exported from one install — models, allowances, tool rules,
// trusted sources, MCP servers, channels, schedules — and imported on a fresh one through the
// routes: the same settings there, not one secret in the file, and the import names what to type
// again. A file that is not one is refused with a clear error and changes nothing.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as exporter from '@/app/api/settings/export/route';
import * as importer from '@/app/api/settings/import/route';
import { readSchedule } from '@/lib/backup/backup-schedule';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { replaceAllowances, listAllowances } from '@/lib/store/allowances-repository';
import { saveChannel, listChannels } from '@/lib/store/channels-repository';
import { closeDb, getDb } from '@/lib/store/db';
import { readMcpSettings, readSettings, writeMcpSettings, writeSettings } from '@/lib/store/settings-repository';
import { insertRule, listRules } from '@/lib/store/tool-rules-repository';
import { listSchedules } from '@/lib/store/triggers-repository';
import { readTrust, writeTrust } from '@/lib/store/untrusted-repository';
import { createSchedule, createScheduleSchema } from '@/lib/triggers/schedule-service';
import { databaseUrl } from '@/test/support/postgres';
import { storeOnPostgres, useTempAppDirs } from '@/test/support/temp-app-dirs';
import { inject } from 'vitest';

const dirs = useTempAppDirs({ personas: { iris: '# Iris\n' } });
afterAll(() => closeDb());

const layer = (apiKey: string) => ({ backend: 'anthropic' as const, model: 'claude-sonnet-4-5', max_tokens: 1024, api_key: apiKey });

async function newSession(name: string): Promise<string> {
  const id = randomUUID();
  await (await getDb()).session.create({ data: { id, name, personaName: 'iris', personaHash: 'h', modelConfig: JSON.stringify(defaultModels), params: JSON.stringify(defaultParams), status: 'paused' } });
  return id;
}

describe('settings that travel', () => {
  let file: string;

  it('export from one install: everything but the secrets', async () => {
    await writeSettings({ ...(await readSettings()), models: { c_model: layer('sk-ant-TRAVEL-SECRET-1'), s_model: layer('sk-ant-TRAVEL-SECRET-1') } });
    await replaceAllowances(
      [
        { id: 'app:', scope: 'app', scopeId: '', usdPerDay: 5, tokensPerDay: null, timeZone: 'Europe/Madrid' },
        { id: 'persona:iris', scope: 'persona', scopeId: 'iris', usdPerDay: null, tokensPerDay: 200_000, timeZone: 'UTC' },
        { id: 'person:owner', scope: 'person', scopeId: 'owner', usdPerDay: 1, tokensPerDay: null, timeZone: 'UTC' },
      ],
      new Date(),
    );
    const sessionId = await newSession('Inbox');
    await insertRule({ scope: 'persona', personaName: 'iris', tool: 'bash', effect: 'allow', matcher: { kind: 'command-prefix', argv: ['git', 'status'] } });
    await insertRule({ scope: 'session', sessionId, tool: 'python', effect: 'deny', matcher: { kind: 'tool' } });
    await writeTrust({ hosts: ['docs.example.org'], mcp_servers: [], skills: [] });
    await writeMcpSettings({ mcpServers: { notes: { command: 'notes-server', args: [], env: { NOTES_TOKEN: 'TRAVEL-SECRET-2' } } }, tools: {}, disabled: [] } as never);
    const channelId = randomUUID();
    const input = channelInputSchema.parse({ id: channelId, kind: 'telegram', name: 'phone', config: { token: '123456789:AAtravelSECRET3xxxxxxxxxxxxxxx' } });
    await saveChannel({ id: channelId, kind: 'telegram', name: 'phone', enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
    await createSchedule({ sessionId, body: createScheduleSchema.parse({ name: 'morning', kind: 'cron', expression: '0 8 * * 1-5', time_zone: 'Europe/Madrid', action: { kind: 'message', text: 'Inbox?' } }), createdBy: 'user', now: new Date() });

    const response = await exporter.GET(new Request('http://127.0.0.1:3000/api/settings/export'), {} as never);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/attachment; filename="agentcsd-settings-\d{4}-\d{2}-\d{2}\.json"/);
    file = await response.text();
    expect(file).not.toMatch(/SECRET|AAtravel/);
    expect(JSON.parse(file)).toMatchObject({ format: 'agentcsd-settings', allowances: [expect.objectContaining({ scope: 'app' }), expect.objectContaining({ scope: 'persona' })] });
    expect(JSON.parse(file).allowances).toHaveLength(2);
    expect(JSON.parse(file).tool_rules).toHaveLength(1);
    await closeDb();
  });

  it('import on a fresh install: the same settings, and what to type again', async () => {
    process.env.AGENTCSD_DATA_DIR = path.join(dirs.root, 'other', 'data');
    if (storeOnPostgres) process.env.AGENTCSD_DATABASE_URL = databaseUrl(inject('postgresStoreUrl'), `agentcsd_other_${randomUUID().slice(0, 8)}`);
    await newSession('Inbox');
    const post = (body: string, confirm = false) => importer.POST(new Request(`http://127.0.0.1:3000/api/settings/import${confirm ? '?confirm=true' : ''}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }), {} as never);

    const refused = await post(JSON.stringify({ format: 'agentcsd-settings', version: 2 }));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'validation_failed' } });
    expect(await listAllowances()).toEqual([]);

    const response = await post(file);
    expect(response.status).toBe(200);
    const { report } = (await response.json()) as { report: { imported: string[]; skipped: string[]; to_type_again: string[]; to_confirm: string[] } };
    expect(report.skipped).toEqual([]);
    // What widens what the agent may do unasked waits for the owner (issue 72 §3): listed, not applied.
    expect(report.to_confirm).toEqual(expect.arrayContaining(['always allow bash {"kind":"command-prefix","argv":["git","status"]} for persona iris', 'trust the host docs.example.org']));
    expect(await listRules()).toEqual([]);
    expect((await readTrust()).hosts).toEqual([]);
    // An imported MCP server is off: its command does not run at the next start.
    expect((await readMcpSettings()).disabled).toContain('notes');
    const parsed = JSON.parse(file) as Record<string, unknown>;
    const confirmed = await post(JSON.stringify({ format: parsed.format, version: parsed.version, tool_rules: parsed.tool_rules, trust: parsed.trust, ...(parsed.backups !== undefined && { backups: parsed.backups }) }), true);
    expect(((await confirmed.json()) as { report: { to_confirm: string[] } }).report.to_confirm).toEqual([]);
    expect(report.to_type_again).toEqual(
      expect.arrayContaining([expect.stringContaining('Channel “phone” (telegram)'), expect.stringContaining('MCP server “notes”: NOTES_TOKEN'), expect.stringContaining('Anthropic API key')]),
    );
    expect((await readSettings()).models.c_model).toMatchObject({ backend: 'anthropic', model: 'claude-sonnet-4-5' });
    expect((await readSettings()).models.c_model.api_key).toBeUndefined();
    expect((await listAllowances()).map((allowance) => [allowance.scope, allowance.scopeId, allowance.usdPerDay, allowance.tokensPerDay, allowance.timeZone]).sort()).toEqual([
      ['app', '', 5, null, 'Europe/Madrid'],
      ['persona', 'iris', null, 200_000, 'UTC'],
    ]);
    expect((await listRules()).map((rule) => [rule.scope, rule.personaName, rule.tool, rule.effect, rule.matcher])).toEqual([['persona', 'iris', 'bash', 'allow', { kind: 'command-prefix', argv: ['git', 'status'] }]]);
    expect((await readTrust()).hosts).toEqual(['docs.example.org']);
    expect((await readMcpSettings()).mcpServers.notes).toMatchObject({ command: 'notes-server', env: { NOTES_TOKEN: '' } });
    expect((await listChannels()).map((channel) => [channel.kind, channel.name, channel.enabled])).toEqual([['telegram', 'phone', false]]);
    expect((await listSchedules()).map((schedule) => [schedule.name, schedule.expression, schedule.timeZone])).toEqual([['morning', '0 8 * * 1-5', 'Europe/Madrid']]);

    // Imported twice: nothing doubles but the channel (a new one each time, off).
    await post(file, true);
    expect(await listRules()).toHaveLength(1);
    expect(await listAllowances()).toHaveLength(2);

    // A backup folder inside the data folder (a workspace among it) is refused, confirmed or not.
    const inside = path.join(process.env.AGENTCSD_DATA_DIR!, 'workspaces', 'guest', 'loot');
    const hostile = await post(JSON.stringify({ format: 'agentcsd-settings', version: 1, backups: { enabled: true, hour: 3, keep: 7, folder: inside } }), true);
    const hostileReport = ((await hostile.json()) as { report: { skipped: string[]; to_confirm: string[] } }).report;
    expect(hostileReport.skipped).toEqual([expect.stringMatching(/^the backup schedule: its folder .* is inside the data folder/)]);
    expect((await readSchedule()).folder).not.toBe(inside);
  });
});
