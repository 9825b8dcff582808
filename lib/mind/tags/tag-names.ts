// The tag protocol's exact names (seed 000 §4, ARCHITECTURE §4), and the one registry of the
// wrappers the app writes around text from outside. The escaper derives from both, so a wrapper
// cannot be written without being escaped for (issue 41 §8: `webhook_payload` was missing, and a
// payload could close its own block).

/** Every tag the app wraps outside text in: the text inside is data, never instructions. */
export const outsideTextTags = [
  /** A tool result from outside (a web page, an MCP server, a memory written from one) (issue 32). */
  'untrusted_data',
  /** A webhook delivery's body (issue 29). */
  'webhook_payload',
  /** What a person attached from an MCP server (issue 30): a resource's text, a prompt's. */
  'mcp_resource',
  'mcp_prompt',
  /** A skill's file as `load_skill` returns it (issue 34). */
  'skill_file',
  /** What the agents of a task tree noted for each other (issue 34), in a step's brief. */
  'team_notes',
] as const;
export type OutsideTextTag = (typeof outsideTextTags)[number];

const protocolTags = [
  'ED_user',
  'ED_agent',
  'ID_loud',
  'ID_quiet',
  'ID_quiet_history',
  'S_loud',
  'S_quiet',
  'S_quiet_history',
  'S_loud_history',
  'M_AND_C',
  'mood',
  'criteria',
  'trigger',
  /** A rest the Subconscious chose (issue 74): for how long, or until what. */
  'rest',
  /** The Internal Dialog's tool calls, shown to the Subconscious (issue 15). */
  'tool_activity',
  /** A task's goal, plan and progress in the Internal Dialog's prompt (issue 16). */
  'task',
  /** What the persona remembers from other sessions, in the Internal Dialog's prompt (issue 17). */
  'memory',
  /** Consolidation (issue 17): the new conversation, the facts known, and each fact the model extracts. */
  'conversation',
  'known_facts',
  'fact',
] as const;

export const tagNames = [...protocolTags, ...outsideTextTags] as const;

export type TagName = (typeof tagNames)[number];

const byLowerCase = new Map<string, TagName>(tagNames.map((name) => [name.toLowerCase(), name]));

/** The canonical name for a case-insensitive match, or undefined when it is not one of ours. */
export function canonicalTagName(name: string): TagName | undefined {
  return byLowerCase.get(name.toLowerCase());
}

// Longest first so `ID_quiet_history` wins over `ID_quiet`.
export const tagNamePattern = [...tagNames].sort((a, b) => b.length - a.length).join('|');
