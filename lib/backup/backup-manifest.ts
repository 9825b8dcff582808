// What a backup archive says about itself (ARCHITECTURE §28): `manifest.json` beside the parts,
// with the app's version, the schema's newest migration and each part's size and SHA-256. A
// restore reads it first and trusts nothing it does not list.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { z } from 'zod';

export const MANIFEST = 'manifest.json';
export const FORMAT = 'agentcsd-backup';

/** The parts' names inside the archive. */
export const PARTS = {
  sqlite: 'database/agentcsd.db',
  postgresDump: 'database/postgres.dump',
  /** PostgreSQL's rows that held secrets (sessions, settings, hooks), as JSON with the secrets taken out. */
  postgresRows: 'database/rows.json',
  /** The sealing key and the secrets taken out of the database, encrypted with the passphrase. */
  secrets: 'secrets.enc',
} as const;

const part = z.object({ path: z.string().min(1).max(4096), size: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) });

export const manifestSchema = z.object({
  format: z.literal(FORMAT),
  format_version: z.literal(1),
  app_version: z.string().max(200),
  created_at: z.string(),
  store: z.enum(['sqlite', 'postgres']),
  /** The schema's newest migration when the backup was taken. */
  newest_migration: z.string().max(200),
  /** `sealed`: the key and secrets are in secrets.enc under a passphrase; `left-out`: not in the archive. */
  secrets: z.enum(['sealed', 'left-out']),
  /** What the restored app cannot open without the secrets (named, never their values). */
  secret_holders: z.array(z.string().max(500)).max(10_000),
  parts: z.array(part).max(1_000_000),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestPart = z.infer<typeof part>;

/** A file's size and SHA-256, read as a stream (a database can be large). */
export async function describeFile(file: string, name: string): Promise<ManifestPart> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(file)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { path: name, size, sha256: hash.digest('hex') };
}

/** The manifest of an unpacked archive, or a clear reason it is not one. */
export function readManifest(text: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BackupError('not_a_backup', 'manifest.json is not JSON: this is not an AgentCSD backup, or it is damaged');
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new BackupError('not_a_backup', `manifest.json is not an AgentCSD backup's: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** A refusal with a reason a person can act on; nothing was written when it is thrown. */
export class BackupError extends Error {
  constructor(
    readonly code: 'not_a_backup' | 'damaged' | 'newer_schema' | 'passphrase' | 'not_empty' | 'tool_missing' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'BackupError';
  }
}

/** A file name for a new backup: `agentcsd-<UTC time>-<short id>.tar.gz`. */
export function backupFileName(at: Date, trigger: 'scheduled' | 'manual' = 'manual'): string {
  // A scheduled archive says so in its name: retention ("keep the last N") touches only those (issue 73 §5).
  return `agentcsd-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomUUID().slice(0, 8)}${trigger === 'scheduled' ? '-daily' : ''}.tar.gz`;
}
