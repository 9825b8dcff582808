// Settings that travel (issue 63 §4): the app's settings alone — models and parameters, memory,
// MCP servers, trusted sources, allowances, standing tool rules, channels, schedules and the
// backup schedule — as one JSON file another install imports. No secret leaves: API keys are
// dropped, MCP servers' env and header values emptied, channels' tokens masked; the import names
// what to type again. What belongs to this install alone (a person's allowance, a session's own
// rule) stays; a schedule goes to the session of the same persona and name, if there is one.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { publicSchedule, putScheduleSchema, readSchedule, writeSchedule } from '@/lib/backup/backup-schedule';
import { allowanceSchema } from '@/lib/config/allowance-config';
import { layerModelConfigSchema, mergeModels, sessionParamsSchema, type LayerModelConfig } from '@/lib/config/model-config';
import { isHttpServer, mcpSettingsSchema, type McpSettings } from '@/lib/config/mcp-config';
import { ruleMatcherSchema, toolName } from '@/lib/config/rule-matcher';
import { trustSettingsSchema } from '@/lib/config/trust-config';
import { channelInputSchema, mergeChannelConfig, MASK, publicChannelConfig } from '@/lib/channels/channel-config';
import { memorySettingsSchema, readMemorySettings, writeMemorySettings } from '@/lib/memory/memory-settings';
import { listAllowances, replaceAllowances } from '@/lib/store/allowances-repository';
import { listChannels, saveChannel } from '@/lib/store/channels-repository';
import { getDb } from '@/lib/store/db';
import { readMcpSettings, readSettings, writeMcpSettings, writeSettings } from '@/lib/store/settings-repository';
import { insertRule, listRules } from '@/lib/store/tool-rules-repository';
import { listSchedules } from '@/lib/store/triggers-repository';
import { readTrust, writeTrust } from '@/lib/store/untrusted-repository';
import { createSchedule, createScheduleSchema } from '@/lib/triggers/schedule-service';
import { errorText } from '@/lib/errors/error-text';
import { appPaths } from '@/lib/config/env';

const withoutKey = (layer: LayerModelConfig) => {
  const { api_key: _key, fallbacks, ...rest } = layer;
  return { ...rest, ...(fallbacks && { fallbacks: fallbacks.map(({ api_key: _fallbackKey, ...fallback }) => fallback) }) };
};

export const settingsFileSchema = z
  .object({
    format: z.literal('agentcsd-settings'),
    version: z.literal(1),
    exported_at: z.string().optional(),
    models: z.object({ c_model: layerModelConfigSchema, s_model: layerModelConfigSchema }).strict().optional(),
    params: sessionParamsSchema.optional(),
    memory: memorySettingsSchema.optional(),
    mcp: mcpSettingsSchema.optional(),
    trust: trustSettingsSchema.optional(),
    allowances: z.array(allowanceSchema).max(500).optional(),
    tool_rules: z.array(z.object({ persona: z.string().min(1).max(100), tool: toolName, effect: z.enum(['allow', 'deny']), matcher: ruleMatcherSchema }).strict()).max(2_000).optional(),
    channels: z.array(z.unknown()).max(100).optional(),
    schedules: z.array(z.object({ persona: z.string().max(100), session_name: z.string().max(200), schedule: createScheduleSchema }).strict()).max(1_000).optional(),
    backups: putScheduleSchema.optional(),
  })
  .strict();
export type SettingsFile = z.infer<typeof settingsFileSchema>;

/** MCP servers with every env and header value emptied (and OAuth's client secret gone): the names stay, to type again. */
function mcpWithoutSecrets(settings: McpSettings): McpSettings {
  const servers = Object.fromEntries(
    Object.entries(settings.mcpServers).map(([name, config]) => {
      if (isHttpServer(config)) {
        const { client_secret: _secret, ...oauth } = config.oauth ?? {};
        return [name, { ...config, headers: Object.fromEntries(Object.keys(config.headers).map((key) => [key, ''])), ...(config.oauth && { oauth }) }];
      }
      return [name, { ...config, env: Object.fromEntries(Object.keys(config.env).map((key) => [key, ''])) }];
    }),
  );
  return { ...settings, mcpServers: servers } as McpSettings;
}

/** Every value a form shows masked becomes the mask alone (not even its last four characters travel). */
function masked(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).map(([key, value]) => [key, typeof value === 'string' && value.startsWith(MASK) ? MASK : value]));
}

export async function exportSettings(now = new Date()): Promise<SettingsFile> {
  const settings = await readSettings();
  const memory = await readMemorySettings();
  const sessions = new Map((await (await getDb()).session.findMany({ select: { id: true, name: true, personaName: true } })).map((session) => [session.id, session]));
  const backups = publicSchedule(await readSchedule());
  return {
    format: 'agentcsd-settings',
    version: 1,
    exported_at: now.toISOString(),
    models: { c_model: withoutKey(settings.models.c_model), s_model: withoutKey(settings.models.s_model) },
    params: settings.params,
    memory: { ...memory, embeddings: memory.embeddings && { ...memory.embeddings, api_key: undefined } },
    mcp: mcpWithoutSecrets(await readMcpSettings()),
    trust: await readTrust(),
    allowances: (await listAllowances()).filter((allowance) => allowance.scope !== 'person').map((allowance) => ({ scope: allowance.scope, scope_id: allowance.scopeId, usd_per_day: allowance.usdPerDay, tokens_per_day: allowance.tokensPerDay, time_zone: allowance.timeZone })),
    tool_rules: (await listRules()).filter((rule) => rule.scope === 'persona' && rule.personaName).map((rule) => ({ persona: rule.personaName!, tool: rule.tool, effect: rule.effect, matcher: rule.matcher as z.infer<typeof ruleMatcherSchema> })),
    channels: (await listChannels()).map((channel) => ({ kind: channel.kind, name: channel.name, enabled: false, config: masked(publicChannelConfig(channel)) })),
    schedules: (await listSchedules({ states: ['active', 'paused'] })).flatMap((schedule) => {
      const session = sessions.get(schedule.sessionId);
      if (!session || schedule.createdBy !== 'user') return [];
      return [{ persona: session.personaName, session_name: session.name, schedule: { name: schedule.name, kind: schedule.kind, expression: schedule.expression, time_zone: schedule.timeZone, action: schedule.action, catch_up: schedule.catchUp } as z.infer<typeof createScheduleSchema> }];
    }),
    backups: { enabled: backups.enabled, hour: backups.hour, time_zone: backups.time_zone, keep: backups.keep, folder: backups.folder },
  };
}

export interface ImportReport {
  imported: string[];
  skipped: string[];
  to_type_again: string[];
  /** What would widen what the agent may do unasked — always-allow rules, trusted sources, the backup folder: held back until confirmed. */
  to_confirm: string[];
}

/**
 * Applies a settings file over this install's: what it names is replaced or added, nothing else is
 * removed. MCP servers arrive switched off (a stdio command would run at the next start), as
 * channels do. Tool rules, trusted sources and the backup schedule are applied only with `confirm`
 * (issue 72 §3): without it the report lists them, exactly, for the owner to read first. A backup
 * folder inside the data folder — a workspace among them — is refused either way.
 */
export async function importSettings(file: SettingsFile, now = new Date(), options: { confirm?: boolean } = {}): Promise<ImportReport> {
  const report: ImportReport = { imported: [], skipped: [], to_type_again: [], to_confirm: [] };
  const confirm = options.confirm === true;
  if (file.models || file.params) {
    const stored = await readSettings();
    await writeSettings({ models: file.models ? mergeModels(file.models, stored.models) : stored.models, params: file.params ?? stored.params });
    report.imported.push('models and parameters');
  }
  if (file.memory) {
    const stored = await readMemorySettings();
    const keep = stored.embeddings?.api_key && file.memory.embeddings && stored.embeddings.endpoint === file.memory.embeddings.endpoint ? stored.embeddings.api_key : undefined;
    await writeMemorySettings({ ...file.memory, embeddings: file.memory.embeddings && { ...file.memory.embeddings, ...(keep && { api_key: keep }) } });
    report.imported.push('memory');
    if (file.memory.embeddings?.endpoint && !keep) report.to_type_again.push('Memory: the embeddings endpoint’s API key, if it needs one');
  }
  if (file.mcp) {
    const stored = await readMcpSettings();
    const added = Object.keys(file.mcp.mcpServers).filter((name) => !stored.mcpServers[name]);
    await writeMcpSettings({ mcpServers: { ...Object.fromEntries(added.map((name) => [name, file.mcp!.mcpServers[name]!])), ...stored.mcpServers }, tools: { ...file.mcp.tools, ...stored.tools }, disabled: [...new Set([...stored.disabled, ...file.mcp.disabled, ...added])] });
    for (const name of added) report.to_type_again.push(`MCP server “${name}”: imported switched off — turn it on in Settings › MCP once you have read what it runs`);
    for (const name of added) {
      const config = file.mcp.mcpServers[name]!;
      const blanks = Object.keys(isHttpServer(config) ? config.headers : config.env);
      if (blanks.length) report.to_type_again.push(`MCP server “${name}”: ${blanks.join(', ')}`);
    }
    report.imported.push(`MCP servers (${added.length} added)`);
  }
  if (file.trust && !confirm) {
    for (const host of file.trust.hosts) report.to_confirm.push(`trust the host ${host}`);
    for (const server of file.trust.mcp_servers) report.to_confirm.push(`trust the MCP server “${server}”`);
    for (const skill of file.trust.skills) report.to_confirm.push(`trust the skill “${skill}”`);
  } else if (file.trust) {
    const stored = await readTrust();
    await writeTrust({ hosts: [...new Set([...stored.hosts, ...file.trust.hosts])], mcp_servers: [...new Set([...stored.mcp_servers, ...file.trust.mcp_servers])], skills: [...new Set([...stored.skills, ...file.trust.skills])] });
    report.imported.push('trusted sources');
  }
  if (file.allowances) {
    const kept = (await listAllowances()).filter((allowance) => !file.allowances!.some((given) => given.scope === allowance.scope && given.scope_id === allowance.scopeId));
    const given = file.allowances.filter((allowance) => allowance.scope !== 'person');
    await replaceAllowances([...kept, ...given.map((allowance) => ({ id: `${allowance.scope}:${allowance.scope_id}`, scope: allowance.scope, scopeId: allowance.scope_id, usdPerDay: allowance.usd_per_day, tokensPerDay: allowance.tokens_per_day, timeZone: allowance.time_zone }))], now);
    report.imported.push(`allowances (${given.length})`);
  }
  if (file.tool_rules && !confirm) {
    for (const rule of file.tool_rules) report.to_confirm.push(`${rule.effect === 'allow' ? 'always allow' : 'always deny'} ${rule.tool} ${JSON.stringify(rule.matcher)} for persona ${rule.persona}`);
  } else if (file.tool_rules) {
    const stored = await listRules();
    let added = 0;
    for (const rule of file.tool_rules) {
      const same = stored.some((known) => known.scope === 'persona' && known.personaName === rule.persona && known.tool === rule.tool && known.effect === rule.effect && JSON.stringify(known.matcher) === JSON.stringify(rule.matcher));
      if (same) continue;
      await insertRule({ scope: 'persona', personaName: rule.persona, tool: rule.tool, effect: rule.effect, matcher: rule.matcher });
      added++;
    }
    report.imported.push(`tool rules (${added} added)`);
  }
  for (const raw of file.channels ?? []) {
    const parsed = channelInputSchema.safeParse({ ...(raw as object), enabled: false });
    if (!parsed.success) {
      report.skipped.push(`a channel: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
      continue;
    }
    const id = randomUUID();
    await saveChannel({ id, kind: parsed.data.kind, name: parsed.data.name, enabled: false, config: mergeChannelConfig({ ...parsed.data, id }, null) });
    report.imported.push(`channel “${parsed.data.name}” (${parsed.data.kind}, off)`);
    report.to_type_again.push(`Channel “${parsed.data.name}” (${parsed.data.kind}): its tokens or password, then turn it on`);
  }
  for (const entry of file.schedules ?? []) {
    const session = await (await getDb()).session.findFirst({ where: { personaName: entry.persona, name: entry.session_name }, orderBy: { lastActivityAt: 'desc' } });
    if (!session) {
      report.skipped.push(`schedule “${entry.schedule.name ?? entry.schedule.expression}”: no session “${entry.session_name}” of ${entry.persona} here`);
      continue;
    }
    try {
      await createSchedule({ sessionId: session.id, body: entry.schedule, createdBy: 'user', now });
      report.imported.push(`schedule “${entry.schedule.name ?? entry.schedule.expression}”`);
    } catch (error) {
      report.skipped.push(`schedule “${entry.schedule.name ?? entry.schedule.expression}”: ${errorText(error)}`);
    }
  }
  const backupsInside = file.backups && isInside(path.resolve(file.backups.folder), appPaths().dataDir);
  if (file.backups && backupsInside) report.skipped.push(`the backup schedule: its folder ${file.backups.folder} is inside the data folder (a backup there would be lost with it, and a conversation's workspace could read it)`);
  else if (file.backups && !confirm) report.to_confirm.push(`back up ${file.backups.enabled ? 'daily' : '(off)'} into ${path.resolve(file.backups.folder)}`);
  else if (file.backups) {
    const saved = await writeSchedule({ ...file.backups, passphrase: undefined });
    report.imported.push('the backup schedule');
    if (!publicSchedule(saved).passphrase_set) report.to_type_again.push('Backups: the passphrase, if the backups should carry the keys');
  }
  if (file.models) {
    const { models } = await readSettings();
    for (const [layer, config] of [['Internal Dialog', models.c_model], ['Subconscious', models.s_model]] as const)
      if (config.backend === 'anthropic' && !config.api_key) report.to_type_again.push(`Models: the ${layer}’s Anthropic API key (or ANTHROPIC_API_KEY)`);
  }
  return report;
}

const isInside = (child: string, parent: string) => {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};
