// Environment, validated once with zod. Read lazily so tests can set variables before first use.
import path from 'node:path';
import { z } from 'zod';
import { processSlot } from '@/lib/process/process-state';

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  AGENTCSD_DATA_DIR: z.string().min(1).default('data'),
  AGENTCSD_PERSONAS_DIR: z.string().min(1).default('personas'),
  /** Global skills (issue 34): one folder per skill, each with a SKILL.md. */
  AGENTCSD_SKILLS_DIR: z.string().min(1).default('skills'),
  /** Extra Host names allowed besides the loopback ones (comma-separated), e.g. a LAN name. */
  AGENTCSD_ALLOWED_HOSTS: z.string().default(''),
  /**
   * The address phones reach the app at through a TLS reverse proxy (issue 61), e.g.
   * `https://agent.home.example`: the passkeys' relying party, an allowed Host and Origin, `Secure`
   * cookies, and the links in invites. Set, the owner's access token is required as when exposed.
   */
  AGENTCSD_PUBLIC_URL: z.url().optional(),
  /**
   * The reverse proxy (or proxies) whose X-Forwarded-For is believed for the sign-in attempt limit:
   * addresses, comma-separated (e.g. `127.0.0.1` for Caddy on this machine). Unset: nobody's.
   */
  AGENTCSD_TRUSTED_PROXIES: z.string().optional(),
  /** Push services notifications may go to besides public HTTPS ones (origins, comma-separated): a self-hosted one on the LAN. */
  AGENTCSD_PUSH_SERVICES: z.string().optional(),
  /** Access token: required when set, and when bound to a non-loopback address or AGENTCSD_PUBLIC_URL is set (generated then). */
  AGENTCSD_ACCESS_TOKEN: z.string().min(32).optional(),
  ANTHROPIC_API_KEY: z.string().optional(),
  /** The key that seals stored sign-in tokens (32 bytes, base64); default: data/secret.key, made on first use. */
  AGENTCSD_SECRET_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')
    .optional(),
  /** Where the first-run check looks for local OpenAI-compatible servers. */
  AGENTCSD_OLLAMA_URL: z.string().url().default('http://127.0.0.1:11434/v1'),
  AGENTCSD_LMSTUDIO_URL: z.string().url().default('http://127.0.0.1:1234/v1'),
  /** Where Settings › Voice looks for a speech server (issue 76): speaches' port, whisper.cpp's server's; comma-separated. */
  AGENTCSD_SPEECH_URLS: z.string().default('http://127.0.0.1:8000/v1,http://127.0.0.1:8080/v1'),
  OPENAI_API_KEY: z.string().optional(),
  /** Seed 003's *Working* pause between a task's steps. */
  AGENTCSD_TASK_STEP_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(3_000),
  /** Tokens of MCP tool definitions above which the model searches for tools instead of seeing them all (0: never). */
  AGENTCSD_TOOL_SEARCH_TOKENS: z.coerce.number().int().min(0).max(1_000_000).default(8_000),
  /** Active schedules a persona may have at once (its sessions together), user's and agent's. */
  AGENTCSD_MAX_SCHEDULES: z.coerce.number().int().min(1).max(10_000).default(20),
  /** What runs tasks: `memory` (one process) or `dbos` (durable, on AGENTCSD_DATABASE_URL). */
  AGENTCSD_ENGINE: z.enum(['memory', 'dbos']).default('memory'),
  /** PostgreSQL for the durable engine, e.g. postgres://agentcsd@127.0.0.1:5432/agentcsd. */
  AGENTCSD_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  /** This process's name for the durable engine (the same across its restarts); default agentcsd-<host name>. */
  AGENTCSD_EXECUTOR_ID: z.string().regex(/^[\w.:-]{1,100}$/, 'letters, digits, . : _ - (at most 100)').optional(),
  /** The version the durable engine stamps runs with (default: computed from this checkout, lib/engine/app-version.ts). */
  AGENTCSD_APP_VERSION: z.string().regex(/^[\w.+:-]{1,100}$/, 'letters, digits, . + : _ - (at most 100)').optional(),
  /** This process's share of the active sessions relative to the others on the same PostgreSQL (0: none while another runs). */
  AGENTCSD_CAPACITY: z.coerce.number().min(0).max(1_000).default(1),
  /** In a cluster, a session's workspace follows it through the database up to this size. */
  AGENTCSD_WORKSPACE_SYNC_MB: z.coerce.number().min(0).max(10_000).default(50),
  /** The largest file a message may attach (413 above it). */
  AGENTCSD_UPLOAD_MAX_MB: z.coerce.number().min(1).max(1_000).default(20),
  /** Claude Code CLI processes started ahead for a layer that repeats its call (~120 MiB each while waiting; 0: none). */
  AGENTCSD_CLI_WARM: z.coerce.number().int().min(0).max(32).default(4),
  /** The Chromium the agent's browser runs (issue 45): Debian's package by default. */
  AGENTCSD_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /** Sessions whose browser is open at once (the least recently used closes first). */
  AGENTCSD_BROWSER_SESSIONS: z.coerce.number().int().min(1).max(100).default(4),
  /** A session's browser closes after this many quiet seconds (its sign-ins are kept). */
  AGENTCSD_BROWSER_IDLE_S: z.coerce.number().int().min(10).max(86_400).default(600),
  /** DNS servers that mail signatures (DKIM, DMARC) are checked against, `host[:port]` comma-separated; default: the system's. */
  AGENTCSD_DNS_SERVERS: z
    .string()
    .regex(/^([\w.:\[\]-]+)(,[\w.:\[\]-]+)*$/, 'host[:port] entries, comma-separated')
    .optional(),
});

export type Env = z.infer<typeof envSchema>;

const envKeys = Object.keys(envSchema.shape) as (keyof Env)[];
/** What was read last, in the process state (lib/process): one copy for every bundle. */
const lastRead = processSlot<{ key: string; env: Env } | null>('config.env', () => null);

/** Parsed again only when one of our variables changed (tests change them between cases). */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  if (source !== process.env) return parseEnv(source);
  const key = envKeys.map((name) => source[name] ?? '\u0000').join('\u0001');
  if (lastRead.value?.key !== key) lastRead.value = { key, env: parseEnv(source) };
  return lastRead.value.env;
}

function parseEnv(source: NodeJS.ProcessEnv): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const details = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid environment: ${details.join('; ')}`);
  }
  return result.data;
}

export interface AppPaths {
  dataDir: string;
  databaseFile: string;
  logsDir: string;
  personasDir: string;
}

/** The folders, asked on every write: worked out again only when their variables or the working directory change. */
const lastPaths = processSlot<{ key: string; paths: AppPaths } | null>('config.paths', () => null);

export function appPaths(env?: Env): AppPaths {
  if (env) return pathsOf(env);
  const key = `${process.env.AGENTCSD_DATA_DIR ?? ''}\u0000${process.env.AGENTCSD_PERSONAS_DIR ?? ''}\u0000${process.cwd()}`;
  if (lastPaths.value?.key !== key) lastPaths.value = { key, paths: pathsOf(readEnv()) };
  return lastPaths.value.paths;
}

function pathsOf(env: Env): AppPaths {
  const dataDir = path.resolve(env.AGENTCSD_DATA_DIR);
  return Object.freeze({
    dataDir,
    databaseFile: path.join(dataDir, 'agentcsd.db'),
    logsDir: path.join(dataDir, 'logs'),
    personasDir: path.resolve(env.AGENTCSD_PERSONAS_DIR),
  });
}
