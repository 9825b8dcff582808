// Default per-layer models and parameters, one JSON row per key in `settings`.
import {
  defaultModels,
  defaultParams,
  modelsConfigSchema,
  sessionParamsSchema,
  type ModelsConfig,
  type SessionParams,
} from '@/lib/config/model-config';
import { emptyMcpSettings, mcpSettingsSchema, type McpSettings } from '@/lib/config/mcp-config';
import type { z } from 'zod';
import { getDb } from './db';
import { parseJsonColumn } from './json-column';

/** The setting that holds Web Push's keys (lib/web-auth/push.ts), the private one sealed. */
export const WEB_PUSH_VAPID_SETTING = 'web_push_vapid';

export interface AppSettings {
  models: ModelsConfig;
  params: SessionParams;
}

export async function readSettings(): Promise<AppSettings> {
  const db = await getDb();
  const rows = await db.setting.findMany({ where: { key: { in: ['models', 'params'] } } });
  const byKey = new Map(rows.map((row) => [row.key, row.value]));
  const models = byKey.get('models');
  const params = byKey.get('params');
  return {
    models: models ? parseJsonColumn(modelsConfigSchema, models, 'default models') : defaultModels,
    params: params ? parseJsonColumn(sessionParamsSchema, params, 'default params', defaultParams) : defaultParams,
  };
}

export async function writeSettings(settings: AppSettings): Promise<void> {
  const db = await getDb();
  await db.$transaction([
    db.setting.upsert({
      where: { key: 'models' },
      create: { key: 'models', value: JSON.stringify(settings.models) },
      update: { value: JSON.stringify(settings.models) },
    }),
    db.setting.upsert({
      where: { key: 'params' },
      create: { key: 'params', value: JSON.stringify(settings.params) },
      update: { value: JSON.stringify(settings.params) },
    }),
  ]);
}

/** One JSON row of `settings`, parsed through its schema; `fallback` when absent (and for keys older rows lack). */
export async function readJsonSetting<T>(key: string, schema: z.ZodType<T>, what: string, fallback: T): Promise<T> {
  const db = await getDb();
  const row = await db.setting.findUnique({ where: { key } });
  return row ? parseJsonColumn(schema, row.value, what, fallback) : fallback;
}

export async function writeJsonSetting(key: string, settings: unknown): Promise<void> {
  const db = await getDb();
  const value = JSON.stringify(settings);
  await db.setting.upsert({ where: { key }, create: { key, value }, update: { value } });
}

/** The user's MCP servers (lib/config/mcp-config.ts), one JSON row under `mcp`. */
export function readMcpSettings(): Promise<McpSettings> {
  return readJsonSetting('mcp', mcpSettingsSchema, 'MCP servers', emptyMcpSettings);
}

export function writeMcpSettings(settings: McpSettings): Promise<void> {
  return writeJsonSetting('mcp', settings);
}
