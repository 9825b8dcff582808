// The user's MCP servers as they paste them: Claude Desktop's or `.mcp.json`'s
// `{"mcpServers": …}` unchanged (stdio `{command, args, env, cwd}` or Streamable HTTP
// `{type: "http", url, headers}`), plus what Settings adds per tool (on/off, auto-approve).
// Secrets in `env` and `headers` never go back to a browser whole: they are masked, and a PUT
// that sends the mask back keeps the stored value.
import { z } from 'zod';
import { sha256Hex } from '@/lib/security/digest';

/** A server's name: what the `mcpServers` key says, shown in Settings and on cards. */
/** What a model provider accepts as a tool's name; MCP tools are renamed to fit it. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export const mcpServerNameSchema = z
  .string()
  .min(1, 'a server name must not be empty')
  .max(64, 'a server name must be at most 64 characters')
  .regex(/^[^\u0000-\u001f/\\]+$/, 'a server name must not contain control characters or slashes');

const stringMap = z.record(z.string().max(200), z.string().max(10_000));

const stdioServerSchema = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().trim().min(1, 'command must not be empty').max(4_096),
    args: z.array(z.string().max(10_000)).max(200).default([]),
    env: stringMap.default({}),
    cwd: z.string().max(4_096).optional(),
  })
  .passthrough();

const httpServerSchema = z
  .object({
    type: z.enum(['http', 'streamable-http', 'streamableHttp']),
    url: z.string().url('url must be an absolute http(s) URL').refine((url) => /^https?:\/\//i.test(url), 'url must use http or https'),
    headers: stringMap.default({}),
    /** For servers that sign in with OAuth and offer no registration: a client the user made there. */
    oauth: z
      .object({
        client_id: z.string().min(1).max(500).optional(),
        client_secret: z.string().max(2_000).optional(),
        scope: z.string().max(1_000).optional(),
        /** An https URL where a Client ID Metadata Document for this app is published. */
        client_metadata_url: z.string().url().max(2_000).optional(),
      })
      .strict()
      .optional(),
  })
  .passthrough();

export const mcpServerConfigSchema = z.union([httpServerSchema, stdioServerSchema], {
  error: 'each server needs either a "command" (stdio) or "type": "http" with a "url"',
});

export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;
export type McpStdioConfig = z.infer<typeof stdioServerSchema>;
export type McpHttpConfig = z.infer<typeof httpServerSchema>;

export function isHttpServer(config: McpServerConfig): config is McpHttpConfig {
  return 'url' in config && typeof config.url === 'string';
}

/** What Settings adds to one tool of one server. */
export const mcpToolPrefsSchema = z
  .object({
    /** Off: the tool is not offered to any session. */
    enabled: z.boolean().optional(),
    /** On: calls run without a card; off: every call asks. Absent: the server's read-only hint decides. */
    auto_approve: z.boolean().optional(),
    /** The description the user approved (Settings › MCP servers): a different one now is flagged. */
    approved_description: z.string().max(4_000).optional(),
  })
  .strict();

export const mcpSettingsSchema = z
  .object({
    mcpServers: z.record(z.string(), mcpServerConfigSchema).superRefine((servers, context) => {
      const names = Object.keys(servers);
      if (names.length > 32) context.addIssue({ code: 'custom', message: 'at most 32 MCP servers' });
      for (const name of names) {
        const checked = mcpServerNameSchema.safeParse(name);
        if (!checked.success) context.addIssue({ code: 'custom', path: [name], message: `server name ${JSON.stringify(name)}: ${checked.error.issues[0]!.message}` });
      }
    }),
    /** server name → tool name (the server's own) → prefs. */
    tools: z.record(mcpServerNameSchema, z.record(z.string().max(256), mcpToolPrefsSchema)).default({}),
    /** Servers switched off keep their configuration but are not started. */
    disabled: z.array(mcpServerNameSchema).max(32).default([]),
  })
  .strict();

export type McpSettings = z.infer<typeof mcpSettingsSchema>;
export type McpToolPrefs = z.infer<typeof mcpToolPrefsSchema>;

export const emptyMcpSettings: McpSettings = { mcpServers: {}, tools: {}, disabled: [] };

/** Where a secret value is shown: only its last four characters. */
export function maskSecret(value: string): string {
  return value.length <= 8 ? '••••' : `••••${value.slice(-4)}`;
}

function maskMap(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, maskSecret(value)]));
}

/** The settings as a browser may see them: env and header values masked. */
export function maskedMcpSettings(settings: McpSettings): McpSettings {
  const servers = Object.fromEntries(
    Object.entries(settings.mcpServers).map(([name, config]) => [
      name,
      isHttpServer(config)
        ? { ...config, headers: maskMap(config.headers), ...(config.oauth?.client_secret && { oauth: { ...config.oauth, client_secret: maskSecret(config.oauth.client_secret) } }) }
        : { ...config, env: maskMap(config.env) },
    ]),
  );
  return { ...settings, mcpServers: servers };
}

/** A PUT that sends a masked value back means "unchanged": the stored secret is kept. */
export function restoreMaskedSecrets(incoming: McpSettings, stored: McpSettings): McpSettings {
  const restore = (values: Record<string, string>, previous: Record<string, string> | undefined) =>
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => {
        const old = previous?.[key];
        return [key, old !== undefined && value === maskSecret(old) ? old : value];
      }),
    );
  const servers = Object.fromEntries(
    Object.entries(incoming.mcpServers).map(([name, config]) => {
      const before = stored.mcpServers[name];
      if (isHttpServer(config)) {
        const previous = before && isHttpServer(before) ? before : undefined;
        const secret = config.oauth?.client_secret;
        const oldSecret = previous?.oauth?.client_secret;
        const oauth = config.oauth && secret !== undefined && oldSecret !== undefined && secret === maskSecret(oldSecret) ? { ...config.oauth, client_secret: oldSecret } : config.oauth;
        return [name, { ...config, headers: restore(config.headers, previous?.headers), ...(oauth && { oauth }) }];
      }
      return [name, { ...config, env: restore(config.env, before && !isHttpServer(before) ? before.env : undefined) }];
    }),
  );
  return { ...incoming, mcpServers: servers };
}

/** A masked value that matches no stored secret was pasted from a masked page by mistake. */
export function findUnrestoredMask(settings: McpSettings): string | null {
  for (const [name, config] of Object.entries(settings.mcpServers)) {
    if (isHttpServer(config) && config.oauth?.client_secret?.startsWith('••••')) return `${name}.oauth.client_secret`;
    const values = isHttpServer(config) ? config.headers : config.env;
    for (const [key, value] of Object.entries(values)) if (value.startsWith('••••')) return `${name}.${isHttpServer(config) ? 'headers' : 'env'}.${key}`;
  }
  return null;
}

/** Same configuration (what a restart would change), ignoring the order of keys. */
export function sameServerConfig(a: McpServerConfig, b: McpServerConfig): boolean {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]))
        : value;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function clean(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/**
 * The name a model sees for a server's tool: `server__tool`, only `[a-zA-Z0-9_-]`, at most 64
 * characters. When cleaning or cutting changed it, a short hash of the original keeps it unique;
 * the pool keeps the mapping back to (server, tool).
 */
export function mcpToolName(server: string, tool: string): string {
  const plain = `${clean(server)}__${clean(tool)}`;
  if (plain === `${server}__${tool}` && TOOL_NAME_PATTERN.test(plain)) return plain;
  const hash = sha256Hex(`${server}\u0000${tool}`).slice(0, 6);
  return `${plain.slice(0, 64 - 7)}_${hash}`;
}
