// The configs of the tool nodes a capability graph may hold (tool.http, tool.postgres): owned by the
// tools that read them; lib/capabilities/node-types.ts puts them in its table of node types.
import { z } from 'zod';

const hostPattern = /^(?:[a-z0-9-]+\.)*[a-z0-9-]+(?::\d{1,5})?$|^\[[0-9a-f:]+\](?::\d{1,5})?$/i;
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const httpToolConfigSchema = z
  .object({
    /** Hosts it may reach ("api.example.com", "127.0.0.1:8080"); the seed's `url` adds its own host. */
    allowed_hosts: z.array(z.string().regex(hostPattern, 'a host name, optionally with :port')).max(50).optional(),
    methods: z.array(z.enum(HTTP_METHODS)).min(1).optional(),
    timeout_ms: z.number().int().min(100).max(120_000).optional(),
    max_bytes: z.number().int().min(1).max(10 * 1024 * 1024).optional(),
    /** The seed's single-endpoint form. */
    method: z.enum(HTTP_METHODS).optional(),
    url: z.string().url().optional(),
  })
  .strict();
export type HttpConfig = z.infer<typeof httpToolConfigSchema>;

/** tool.browser (issue 45): where the agent's Chromium may go, and how much of a page it reads at once. */
export const browserToolConfigSchema = z
  .object({
    /** Hosts it may reach, loopback and private ones included when listed ("intranet.local", "127.0.0.1:8080"). */
    allowed_hosts: z.array(z.string().regex(hostPattern, 'a host name, optionally with :port')).max(100).optional(),
    /** Any public host too (never a loopback, private or link-local address unless listed). */
    allow_public: z.boolean().optional(),
    /** The most tokens a page snapshot takes (the rest is cut, said so). */
    snapshot_tokens: z.number().int().min(200).max(50_000).optional(),
    /** Downloads land in the workspace (default); false cancels them, said so. */
    downloads: z.boolean().optional(),
  })
  .strict();
export type BrowserConfig = z.infer<typeof browserToolConfigSchema>;

export const postgresToolConfigSchema = z
  .object({
    /** postgres://… — a secret: write-only, never in exports or events. */
    connection: z.string().max(2_000).optional(),
    allow_writes: z.boolean().optional(),
    statement_timeout_ms: z.number().int().min(100).max(600_000).optional(),
    max_rows: z.number().int().min(1).max(10_000).optional(),
  })
  .strict();
export type PostgresConfig = z.infer<typeof postgresToolConfigSchema>;
