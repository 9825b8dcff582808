// What a guest's conversation may not use (issue 42 §4, ARCHITECTURE §21): no shell, no Python, no
// outbound HTTP, no MCP tool that writes, no schedules, no database, no specialists. Checked on the
// server for every call of a session with a guest among its people — a prompt cannot change a role.
import type { Tool } from '@/lib/tools/tool-types';

export const GUEST_REFUSED_TOOLS: ReadonlySet<string> = new Set(['bash', 'python', 'http_get', 'http_request', 'schedule', 'postgres_query', 'postgres_execute', 'delegate']);

export function refusedForGuests(tool: Tool): boolean {
  if (GUEST_REFUSED_TOOLS.has(tool.definition.name)) return true;
  return typeof tool.source === 'object' && 'mcpServer' in tool.source && tool.readOnly !== true;
}

export function guestRefusal(name: string): string {
  return `CAPABILITY_NOT_AVAILABLE: ${name} is not available in a guest's conversation (the owner decides what guests may use: make them trusted on the People page). Do without it, or tell them so.`;
}
