// Which edges an agent graph may have, and how many of each node (seed 004 §5, §8): edges go from a
// trigger to the core and from the core to a capability — "this is available", never "then". The
// editor's isValidConnection and the server's validator both ask canConnect.
import { kindOf, NODE_TYPES, type NodeType } from './node-types';

export type ConnectionVerdict = { ok: true } | { ok: false; reason: string };

export function canConnect(source: NodeType, target: NodeType): ConnectionVerdict {
  const from = kindOf(source);
  const to = kindOf(target);
  if (to === 'trigger') return { ok: false, reason: `nothing connects into a trigger (${target}): triggers start runs` };
  if (from === 'capability') return { ok: false, reason: `${source} is a capability: capabilities are used by agent.core, they connect to nothing` };
  if (from === 'trigger') return to === 'core' ? { ok: true } : { ok: false, reason: `a trigger starts agent.core, not ${target}` };
  if (to === 'core') return { ok: false, reason: 'agent.core cannot connect to agent.core' };
  return { ok: true };
}

/** How many of a type a graph may hold (absent: any number). */
export const CARDINALITY: Partial<Record<NodeType, { min?: number; max?: number }>> = {
  'agent.core': { min: 1, max: 1 },
  'trigger.input': { max: 1 },
  'model.llm': { max: 2 },
  'memory.kv': { max: 1 },
  'tool.files': { max: 1 },
  'tool.bash': { max: 1 },
  'tool.python': { max: 1 },
  'response.chat': { max: 1 },
  'response.end': { max: 1 },
};

/** The whole type × type matrix (snapshotted by a test). */
export function connectionMatrix(): Record<string, Record<string, boolean>> {
  return Object.fromEntries(NODE_TYPES.map((source) => [source, Object.fromEntries(NODE_TYPES.map((target) => [target, canConnect(source, target).ok]))]));
}
