// The node types of an agent graph (seed 004, ARCHITECTURE §13) and each one's config. One table:
// the validator, the runtime, the editor's palette and its forms all read it.
import { z } from 'zod';

import { skillNameSchema } from '@/lib/config/skill-name';
import { personaNameSchema } from '@/lib/personas/persona-name';
import { browserToolConfigSchema, httpToolConfigSchema, postgresToolConfigSchema } from '@/lib/tools/tool-node-configs';

const configs = {
  'trigger.input': z.object({}).strict(),
  /** Schedules may wake this agent, and it gets the `schedule` tool (issue 29). */
  'trigger.schedule': z.object({}).strict(),
  /** Webhooks may wake this agent (POST /api/hooks/:id, signed). */
  'trigger.webhook': z.object({}).strict(),
  'agent.core': z
    .object({
      strategy: z.enum(['reactive']).default('reactive'),
      instructions: z.string().max(20_000).optional(),
    })
    .strict(),
  'model.llm': z
    .object({
      /** Which layer of the mind this model is: the Internal Dialog (C) or the Subconscious (S). */
      role: z.enum(['c_model', 's_model']).optional(),
      /** The seed's own fields, kept as written (the session's model settings decide the backend). */
      provider: z.string().max(100).optional(),
      model: z.string().max(200).optional(),
    })
    .strict(),
  'memory.kv': z
    .object({
      /** Read only: recall, but no remember, journal or forget_memory. */
      read_only: z.boolean().optional(),
    })
    .strict(),
  'tool.files': z.object({}).strict(),
  'tool.bash': z.object({}).strict(),
  'tool.python': z.object({}).strict(),
  'tool.http': httpToolConfigSchema,
  /** The agent's Chromium (issue 45): allowed hosts, or any public host, and the snapshot's budget. */
  'tool.browser': browserToolConfigSchema,
  'tool.postgres': postgresToolConfigSchema,
  'tool.mcp': z.object({ server: z.string().min(1).max(64) }).strict(),
  /** A skill the agent may load (issue 34): its name and description are listed in its prompt. */
  skill: z.object({ name: skillNameSchema }).strict(),
  /** A specialist the agent may hand work to with `delegate` (issue 34): another persona, with its own graph. */
  'agent.delegate': z.object({ persona: personaNameSchema }).strict(),
  'response.chat': z.object({ format: z.enum(['text', 'markdown']).optional() }).strict(),
  'response.end': z.object({}).strict(),
} as const;

export type NodeType = keyof typeof configs;
export const NODE_TYPES = Object.keys(configs) as NodeType[];
export type NodeConfig<T extends NodeType> = z.infer<(typeof configs)[T]>;

export function isNodeType(type: string): type is NodeType {
  return Object.hasOwn(configs, type);
}

export function configSchema(type: NodeType): z.ZodType {
  return configs[type];
}

export type NodeKind = 'trigger' | 'core' | 'capability';

export function kindOf(type: NodeType): NodeKind {
  if (type.startsWith('trigger.')) return 'trigger';
  return type === 'agent.core' ? 'core' : 'capability';
}

/** What the palette and the node cards say about each type. */
export const NODE_LABELS: Record<NodeType, { label: string; help: string }> = {
  'trigger.input': { label: 'User message', help: 'Starts a run when the user writes.' },
  'trigger.schedule': { label: 'Schedule', help: 'Reminders and recurring jobs wake the agent; it may schedule them itself (recurring ones ask first).' },
  'trigger.webhook': { label: 'Webhook', help: 'A signed call from another server wakes the agent with its payload, as untrusted data.' },
  'agent.core': { label: 'Agent core', help: 'The one node that decides; everything else is a capability it may use.' },
  'model.llm': { label: 'Model', help: 'A language model: the Internal Dialog (C) or the Subconscious (S).' },
  'memory.kv': { label: 'Memory', help: 'recall, remember, journal and forget_memory over what the persona remembers.' },
  'tool.files': { label: 'Files', help: 'Read, write and list files in the session workspace; look at its images and show files in the chat.' },
  'tool.bash': { label: 'Bash', help: 'Shell commands in the sandbox (asks first).' },
  'tool.python': { label: 'Python', help: 'Python code in the sandbox (asks first).' },
  'tool.http': { label: 'HTTP', help: 'Requests to allowed hosts; anything but GET asks first.' },
  'tool.browser': { label: 'Browser', help: 'A real Chromium: open pages, read them, click and type, tabs, screenshots, downloads. Pages are untrusted; after reading one, typing or submitting asks first.' },
  'tool.postgres': { label: 'PostgreSQL', help: 'SQL on one database: read-only unless writes are allowed, and then it asks first.' },
  'tool.mcp': { label: 'MCP server', help: 'The tools of one of your MCP servers (Settings).' },
  'agent.delegate': { label: 'Specialist', help: 'Another persona this agent may hand a task to with delegate; it works with its own graph, within a share of the budget.' },
  skill: { label: 'Skill', help: 'A skill from the Skills page: listed in the prompt, loaded with load_skill when a task calls for it.' },
  'response.chat': { label: 'Chat reply', help: 'The agent may answer in the chat.' },
  'response.end': { label: 'End', help: 'The agent may end a task run.' },
};
