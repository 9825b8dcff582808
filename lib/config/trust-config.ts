// What the user trusts (ARCHITECTURE §20): web hosts and MCP servers whose content is not treated
// as untrusted. Content from anywhere else that enters a session makes every later call that
// sends data out ask first.
import { z } from 'zod';
import { skillNameSchema } from './skill-name';

const hostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9.-]+(:\d{1,5})?$/, 'a host name, with a port when not the default (docs.python.org, 127.0.0.1:8080)')
  .max(253);

export const trustSettingsSchema = z
  .object({
    /** Hosts whose pages are trusted content, and where sending data is not an exfiltration. */
    hosts: z.array(hostSchema).max(200).default([]),
    /** MCP servers (by their name in Settings) whose tool descriptions and results are trusted. */
    mcp_servers: z.array(z.string().min(1).max(64)).max(64).default([]),
    /** Skills (by name) whose files are trusted; a skill the app ships is trusted as it came (issue 41 §9). */
    skills: z.array(skillNameSchema).max(200).default([]),
  })
  .strict();

export type TrustSettings = z.infer<typeof trustSettingsSchema>;
export const emptyTrust: TrustSettings = { hosts: [], mcp_servers: [], skills: [] };

/** Where a piece of untrusted content came from; `derived` is never trusted (a memory, an import, a webhook). */
export type UntrustedOrigin = { kind: 'host'; host: string } | { kind: 'mcp_server'; server: string } | { kind: 'skill'; skill: string } | { kind: 'derived'; label: string };

/** How a source is named on a card and in the prompt. */
export function originLabel(origin: UntrustedOrigin): string {
  if (origin.kind === 'host') return `the web page(s) of ${origin.host}`;
  if (origin.kind === 'mcp_server') return `the MCP server "${origin.server}"`;
  if (origin.kind === 'skill') return `the files of the skill "${origin.skill}"`;
  return origin.label;
}

export function isTrusted(origin: UntrustedOrigin, trust: TrustSettings): boolean {
  if (origin.kind === 'host') return trust.hosts.includes(origin.host.toLowerCase());
  if (origin.kind === 'mcp_server') return trust.mcp_servers.includes(origin.server);
  if (origin.kind === 'skill') return trust.skills.includes(origin.skill);
  return false;
}

/** What later prompts read instead of untrusted content (issue 44: it lives in the turn that read it). */
export function withheldText(source: string): string {
  return `[Withheld: written while reading ${source}. Recall it or read it again if you need it; sending anything out then asks the person first.]`;
}
