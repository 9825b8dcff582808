// What a session's graph brings beyond its tool choices: agent.core's instructions, and the tools the built-ins and MCP servers it narrows: those whose
// whose configuration lives on the graph's node (tool.http, tool.postgres, tool.browser). Read once when the mind starts: the
// session's graph is a snapshot and does not change.
import type { BrowserPool } from '@/lib/browser/browser-pool';
import { browserTools } from '@/lib/tools/browser-tools';
import { httpTools } from '@/lib/tools/http-tool';
import { postgresTools } from '@/lib/tools/postgres-tool';
import type { Tool } from '@/lib/tools/tool-types';
import { capabilitiesOf } from './capability-set';
import { readSessionGraph } from './graph-store';

export interface SessionGraphParts {
  /** Tools configured on the graph's nodes. */
  tools: Tool[];
  /** agent.core's instructions, for the Internal Dialog's system prompt. */
  instructions: string | null;
  /** The skills the graph names; 'all' on a default graph (every skill the persona has, as they come). */
  skills: string[] | 'all';
}

/** `browser`: the app's Chromium, for a graph with a tool.browser node. */
export async function sessionGraphParts(sessionId: string, browser?: BrowserPool): Promise<SessionGraphParts> {
  const snapshot = await readSessionGraph(sessionId);
  if (!snapshot) return { tools: [], instructions: null, skills: 'all' };
  const capabilities = capabilitiesOf(snapshot.graph);
  return {
    tools: [
      ...(capabilities.http ? httpTools(capabilities.http) : []),
      ...(capabilities.postgres ? postgresTools(capabilities.postgres) : []),
      ...(capabilities.browser && browser ? browserTools(capabilities.browser, browser, sessionId) : []),
    ],
    instructions: capabilities.instructions?.trim() || null,
    skills: snapshot.fromDefault ? 'all' : capabilities.skills,
  };
}
