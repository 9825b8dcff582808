// The tools a session's graph brings beyond the built-ins and MCP servers it narrows: those whose
// configuration lives on the graph's node (tool.http, tool.postgres). Read once when the mind starts: the
// session's graph is a snapshot and does not change.
import { httpTools } from '@/lib/tools/http-tool';
import { postgresTools } from '@/lib/tools/postgres-tool';
import type { Tool } from '@/lib/tools/tool-types';
import { capabilitiesOf } from './capability-set';
import { readSessionGraph } from './graph-store';

export async function sessionCapabilityTools(sessionId: string): Promise<Tool[]> {
  const snapshot = await readSessionGraph(sessionId);
  if (!snapshot) return [];
  const capabilities = capabilitiesOf(snapshot.graph);
  return [...(capabilities.http ? httpTools(capabilities.http) : []), ...(capabilities.postgres ? postgresTools(capabilities.postgres) : [])];
}
