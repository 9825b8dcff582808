// What a tool does, declared by the tool (issue 58, ARCHITECTURE §26): the rights authority offers a
// conversation only the tools whose traits its people's roles allow. Words for people come from
// here too (the People page, docs/channels.md's table).
import { z } from 'zod';
import type { PersonRole, StoredRights } from '@/lib/store/people-repository';

export const TOOL_TRAITS = ['read_only', 'writes_files', 'writes_memory', 'shares_memory', 'runs_code', 'sends_out', 'browses', 'schedules', 'delegates'] as const;
export type ToolTrait = (typeof TOOL_TRAITS)[number];

/** What each trait lets the agent do, as the owner reads it. */
export const TRAIT_WORDS: Readonly<Record<ToolTrait, string>> = {
  read_only: 'read and look things up (files, memories, skills)',
  writes_files: "write files in the conversation's own workspace",
  writes_memory: 'remember, keep a journal, forget (a forget asks first)',
  shares_memory: 'propose a memory for everyone (the owner decides each)',
  runs_code: 'run code (bash, Python) in the sandbox',
  sends_out: 'send data out (web requests, databases, MCP servers that write)',
  browses: 'drive the browser',
  schedules: 'schedule work for later',
  delegates: 'hand work to specialists',
};

/** What each role may use when the owner changed nothing for the person. */
export const ROLE_TRAITS: Readonly<Record<PersonRole, readonly ToolTrait[]>> = {
  owner: TOOL_TRAITS,
  trusted: TOOL_TRAITS,
  guest: ['read_only', 'writes_files', 'writes_memory', 'shares_memory'],
};

/** The owner's changes for one person: traits widened beyond the role, or narrowed below it. */
export const personRightsSchema = z
  .object({
    allow: z.array(z.enum(TOOL_TRAITS)).max(TOOL_TRAITS.length).default([]),
    deny: z.array(z.enum(TOOL_TRAITS)).max(TOOL_TRAITS.length).default([]),
  })
  .strict()
  .refine((rights) => !rights.allow.some((trait) => rights.deny.includes(trait)), 'a trait is either allowed or denied, not both');
export type PersonRights = z.infer<typeof personRightsSchema>;

/** The traits a person may use: their role's, with the owner's changes (the owner's own are never narrowed). */
export function traitsOf(person: { role: PersonRole; rights: StoredRights | null }): Set<ToolTrait> {
  const traits = new Set<ToolTrait>(ROLE_TRAITS[person.role]);
  if (person.role === 'owner' || !person.rights) return traits;
  const known = (trait: string): trait is ToolTrait => (TOOL_TRAITS as readonly string[]).includes(trait);
  for (const trait of person.rights.allow) if (known(trait)) traits.add(trait);
  for (const trait of person.rights.deny) if (known(trait)) traits.delete(trait);
  return traits;
}
