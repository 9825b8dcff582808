// The secrets a backup must not carry in the clear. The database keeps a few in plain text — the
// API keys typed for a layer (settings, a session's own models), MCP servers' env and header values
// and OAuth client secrets (the `mcp` setting), tool.postgres connection strings (persona and
// session graphs), webhooks' HMAC keys: exactly what the settings export blanks — and seals the rest (channels' tokens, MCP sign-ins, web push keys) with the data folder's key. Every
// archive takes the plain ones out of its copy of the database; with a passphrase they travel,
// with the sealing key, in `secrets.enc`, and a restore puts them back; without one they are
// gone, and the restore names what must be typed again (never a value).
import { z } from 'zod';
import { WEB_PUSH_VAPID_SETTING } from '@/lib/store/settings-repository';

/** One secret taken out of a row: where it was (a JSON path inside the column, or the column itself) and its value. */
export const takenSecretSchema = z.object({
  table: z.enum(['sessions', 'settings', 'hooks', 'capability_graphs', 'session_capabilities']),
  key: z.string(),
  column: z.string(),
  path: z.array(z.string()).optional(),
  value: z.string(),
});
export type TakenSecret = z.infer<typeof takenSecretSchema>;

export const secretsBundleSchema = z.object({ sealing_key: z.string().nullable(), taken: z.array(takenSecretSchema) });
export type SecretsBundle = z.infer<typeof secretsBundleSchema>;

/** Columns that hold plain secrets: (table, its key column, the secret's column, whether it is JSON). */
export const PLAIN_SECRET_COLUMNS = [
  { table: 'sessions', keyColumn: 'id', column: 'model_config', json: true },
  { table: 'settings', keyColumn: 'key', column: 'value', json: true },
  { table: 'hooks', keyColumn: 'id', column: 'secret', json: false },
  { table: 'capability_graphs', keyColumn: 'persona_name', column: 'graph', json: true },
  { table: 'session_capabilities', keyColumn: 'session_id', column: 'graph', json: true },
] as const;

/**
 * Whether the string at `at` + `field` of a JSON column is a secret, and what stays in its place:
 * a field gone (an API key, OAuth's client secret, a graph node's connection), or an empty value
 * whose name stays to be typed again (an MCP server's env variable or header, as the export does).
 */
function secretAt(at: readonly string[], field: string): 'remove' | 'blank' | null {
  if (field === 'api_key' || field === 'client_secret') return 'remove';
  if (field === 'connection' && at.at(-1) === 'config') return 'remove'; // tool.postgres in a graph
  if (at[0] === 'mcpServers' && at.length === 3 && (at[2] === 'env' || at[2] === 'headers')) return 'blank';
  return null;
}

/** The column's text without its secrets, and what was taken (in the order a walk meets them). */
export function takeSecrets(table: TakenSecret['table'], key: string, column: string, text: string, json: boolean): { text: string; taken: TakenSecret[] } {
  if (!json) return text ? { text: '', taken: [{ table, key, column, value: text }] } : { text, taken: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { text, taken: [] };
  }
  const taken: TakenSecret[] = [];
  const walk = (node: unknown, at: string[]): void => {
    if (!node || typeof node !== 'object') return;
    for (const [field, value] of Object.entries(node as Record<string, unknown>)) {
      const secret = typeof value === 'string' && value ? secretAt(at, field) : null;
      if (secret) {
        taken.push({ table, key, column, path: [...at, field], value: value as string });
        if (secret === 'remove') delete (node as Record<string, unknown>)[field];
        else (node as Record<string, unknown>)[field] = '';
      } else walk(value, [...at, field]);
    }
  };
  walk(parsed, []);
  return taken.length ? { text: JSON.stringify(parsed), taken } : { text, taken };
}

/** The column's text with its secrets put back. */
export function putBack(text: string, secrets: readonly TakenSecret[]): string {
  if (!secrets.length) return text;
  const whole = secrets.find((secret) => !secret.path);
  if (whole) return whole.value;
  const parsed = JSON.parse(text) as Record<string, unknown>;
  for (const secret of secrets) {
    let node = parsed;
    for (const field of secret.path!.slice(0, -1)) {
      if (!node[field] || typeof node[field] !== 'object') node[field] = {};
      node = node[field] as Record<string, unknown>;
    }
    node[secret.path!.at(-1)!] = secret.value;
  }
  return JSON.stringify(parsed);
}

/** Secrets grouped by the row they go back into. */
export function byRow(taken: readonly TakenSecret[]): Map<string, TakenSecret[]> {
  const rows = new Map<string, TakenSecret[]>();
  for (const secret of taken) {
    const id = rowId(secret.table, secret.key);
    rows.set(id, [...(rows.get(id) ?? []), secret]);
  }
  return rows;
}

export function rowId(table: string, key: string): string {
  return `${table}\u0000${key}`;
}

/** Rows of the database, as much of them as naming a secret's holder needs. */
export interface HolderRows {
  sessions: { id: string; name: string }[];
  hooks: { id: string; name: string }[];
  channels: { name: string; kind: string; config: string }[];
  mcpServers: string[];
  sealedSettings: string[];
}

/** What the restored app cannot open without the secrets, in words for the person restoring. */
export function secretHolders(taken: readonly TakenSecret[], rows: HolderRows): string[] {
  const names = new Map([...rows.sessions, ...rows.hooks].map((row) => [row.id, row.name]));
  const holders = new Set<string>();
  for (const secret of taken) {
    const field = secret.path?.at(-1);
    if (secret.table === 'settings' && secret.key === 'mcp') holders.add(`MCP server “${secret.path?.[1]}”: ${field === 'client_secret' ? 'its OAuth client secret' : `its ${secret.path?.[2] === 'headers' ? 'header' : 'variable'} ${field}`}`);
    else if (secret.table === 'settings') holders.add(`API key in Settings (${secret.key}: ${secret.path?.slice(0, -1).join('.') || 'api_key'})`);
    else if (secret.table === 'capability_graphs') holders.add(`PostgreSQL connection in the graph of persona “${secret.key}”`);
    else if (secret.table === 'session_capabilities') holders.add(`PostgreSQL connection of session “${names.get(secret.key) ?? secret.key}”`);
    else if (secret.table === 'sessions') holders.add(`API key of session “${names.get(secret.key) ?? secret.key}”`);
    else holders.add(`Webhook “${names.get(secret.key) ?? secret.key}”: make a new secret (it stays off until then)`);
  }
  for (const channel of rows.channels) if (/"v1:/.test(channel.config)) holders.add(`Channel “${channel.name}” (${channel.kind}): its tokens or password`);
  for (const server of rows.mcpServers) holders.add(`MCP server “${server}”: sign in again`);
  for (const key of rows.sealedSettings) holders.add(key === WEB_PUSH_VAPID_SETTING ? 'Web push: its keys are made anew, phones subscribe again' : `Setting “${key}”: sealed, made anew`);
  return [...holders];
}
