// Untrusted content in a turn (ARCHITECTURE §20). A turn holds untrusted content when its prompt
// does (a page, an MCP server's result, a webhook, a recalled piece written from such text:
// sessions.untrusted_source, the running turn's mark) or when it offers tool descriptions the user
// has not approved from a server they do not trust. In such a turn a call that sends data out — or
// acts outside the workspace — asks first whatever the rules say, and its card names the source. A
// result from outside marks the turn and reaches the model inside <untrusted_data>.
import { isTrusted, originLabel, type TrustSettings, type UntrustedOrigin } from '@/lib/config/trust-config';
import { wrapOutside } from '@/lib/mind/tags/escape';
import type { Tool, ToolOutcome } from '@/lib/tools/tool-types';

/** Whether this call can carry data out of the app or act outside the workspace. */
export function sendsOut(tool: Tool, args: unknown, trust: TrustSettings): boolean {
  if (typeof tool.source === 'object') {
    // A call's arguments reach the server: only a read-only tool of a trusted server stays in.
    return !(tool.readOnly && trust.mcp_servers.includes(tool.source.mcpServer));
  }
  if (!tool.sendsOut?.(args)) return false;
  const url = (args as { url?: unknown }).url;
  if (typeof url === 'string') {
    try {
      if (trust.hosts.includes(new URL(url).host.toLowerCase())) return false; // a host the user trusts
    } catch {
      // not a URL: the tool refuses it
    }
  }
  return true;
}

/** The offered tools whose descriptions are untrusted text: an unapproved one from a server the user does not trust. */
export function untrustedDescriptions(tools: readonly Tool[], trust: TrustSettings): string | null {
  const servers = new Set<string>();
  for (const tool of tools) {
    if (typeof tool.source !== 'object' || tool.descriptionReviewed) continue;
    if (!trust.mcp_servers.includes(tool.source.mcpServer)) servers.add(tool.source.mcpServer);
  }
  if (servers.size === 0) return null;
  return `the tool descriptions of the MCP server${servers.size > 1 ? 's' : ''} ${[...servers].map((name) => `"${name}"`).join(', ')}, not approved in Settings`;
}

/** Where a result's content came from, when from outside the app. */
export function resultOrigin(tool: Tool, outcome: ToolOutcome): UntrustedOrigin | null {
  if (outcome.untrusted) return outcome.untrusted;
  // A status the tool declared, from a tool whose description (and so its listed words) the user approved.
  if (outcome.statusOnly && tool.descriptionReviewed) return null;
  if (typeof tool.source === 'object' && !outcome.cancelled) return { kind: 'mcp_server', server: tool.source.mcpServer };
  return null;
}

/** The label of an untrusted origin, or null when the user trusts it. */
export function untrustedLabel(origin: UntrustedOrigin | null, trust: TrustSettings): string | null {
  if (!origin || isTrusted(origin, trust)) return null;
  return originLabel(origin);
}

/** What the model reads of a result: untrusted content inside escaped, marked tags (the prompt says what that means). */
export function resultForModel(content: string, resultSource: string | null): string {
  if (!resultSource) return content;
  return wrapOutside('untrusted_data', content, { source: resultSource });
}
