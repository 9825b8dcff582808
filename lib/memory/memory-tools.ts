// The Internal Dialog's own hands on memory: `recall` (the same retrieval the prompt uses, this
// session included), `remember` (a fact or note for the persona, no model call) and
// `journal` (a note to itself that fades after a week) and `forget_memory` (the user's right to
// erasure: a person approves it, like any destructive act).
import { z } from 'zod';
import { findSession } from '@/lib/store/sessions-repository';
import { memoryAccess } from '@/lib/people/rights';
import { builtinTool, errorOutcome, type ToolRunContext } from '@/lib/tools/tool-types';
import { appendMemory, findMemory, forgetMemory, MEMORY_KINDS } from './memory-store';
import { memoryBlock, recall, untrustedAmong } from './recall';

async function personaOf(context: Pick<ToolRunContext, 'sessionId'>): Promise<string | null> {
  return (await findSession({ id: context.sessionId }))?.personaName ?? null;
}

/** Why this conversation may not forget memory #id (the rights authority's words), or null. */
async function memoryRefusal(id: number, sessionId: string): Promise<string | null> {
  const persona = await personaOf({ sessionId });
  const answer = await memoryAccess({ sessionId, personaName: persona ?? '', memory: await findMemory(id), id, operation: 'forget' });
  return answer.verdict === 'refuse' ? answer.reason : null;
}

export const recallTool = builtinTool({
  name: 'recall',
  traits: ['read_only'],
  description: 'Search what you remember and everything said in your earlier sessions (and this one) with this persona. Returns the best matches with their dates.',
  args: z.object({ query: z.string().min(1).max(1_000), k: z.number().int().min(1).max(20).optional() }).strict(),
  describeCall: (args) => args.query,
  run: async (args, context) => {
    const persona = await personaOf(context);
    if (!persona) return errorOutcome('This session no longer exists');
    // What this conversation's people may read (issue 42), this session's own messages included.
    const hits = await recall({ personaName: persona, query: args.query, k: args.k ?? 8, forSession: context.sessionId });
    if (hits.length === 0) return { isError: false, content: 'Nothing found.' };
    const block = memoryBlock(hits, 2_000);
    const untrusted = await untrustedAmong(block.used);
    return { isError: false, content: block.text, ...(untrusted && { untrusted: { kind: 'derived' as const, label: untrusted } }) };
  },
});

export const rememberTool = builtinTool({
  name: 'remember',
  traits: ['writes_memory'],
  description:
    "Keep a fact or note for later sessions with this persona (the user, their preferences, decisions, what you did). One short sentence per call. It stays with this conversation's people; scope \"shared\" (the owner approves it) makes it known in everyone's conversations.",
  args: z
    .object({
      content: z.string().min(3).max(2_000),
      kind: z.enum(MEMORY_KINDS).optional(),
      importance: z.number().min(0).max(1).optional(),
      /** private (default): only this conversation's people recall it; shared: every conversation of the persona, once the owner approves. */
      scope: z.enum(['private', 'shared']).optional(),
    })
    .strict(),
  // Shared memory reaches everyone who talks to the persona: the owner alone decides it, on a card (the rights authority).
  callTraits: (args) => (args.scope === 'shared' ? ['shares_memory'] : []),
  approvalFor: (args) => (args.scope === 'shared' ? 'required' : 'never'),
  describeCall: (args) => `${args.scope === 'shared' ? '[shared with everyone] ' : ''}${args.content.slice(0, 200)}`,
  run: async (args, context) => {
    const persona = await personaOf(context);
    if (!persona) return errorOutcome('This session no longer exists');
    const shared = args.scope === 'shared';
    const { memory, created } = await appendMemory({ personaName: persona, content: args.content, kind: args.kind ?? 'fact', importance: args.importance, sessionId: context.sessionId, shared });
    const where = shared ? ' (shared with every conversation of this persona)' : '';
    return { isError: false, content: created ? `Remembered as #${memory.id}${where}.` : `Already remembered as #${memory.id}.` };
  },
});

export const forgetMemoryTool = builtinTool({
  name: 'forget_memory',
  traits: ['writes_memory'],
  description: 'Forget a memory for good (its number is shown as #id in what you remember). Use it when the user asks you to forget something.',
  args: z.object({ id: z.number().int().positive(), reason: z.string().max(500).optional() }).strict(),
  approval: 'required',
  describeCall: (args) => `memory #${args.id}`,
  // Asked before any card: a memory this conversation may not read is "no memory #N", exactly as one that does not exist.
  screen: async (args, context) => memoryRefusal(args.id, context.sessionId),
  run: async (args, context) => {
    const refusal = await memoryRefusal(args.id, context.sessionId);
    if (refusal) return errorOutcome(refusal);
    await forgetMemory(args.id);
    return { isError: false, content: `Memory #${args.id} is forgotten.` };
  },
});

/** Journal entries fade: short-term, a week (seed 003's ephemeral journal). */
export const JOURNAL_TTL_MS = 7 * 24 * 3600_000;

export const journalTool = builtinTool({
  name: 'journal',
  traits: ['writes_memory'],
  description: 'Write a short journal entry for yourself: what happened, what you are working on, what to pick up next. It is recalled for about a week, then fades.',
  args: z.object({ entry: z.string().min(3).max(2_000) }).strict(),
  describeCall: (args) => args.entry.slice(0, 200),
  run: async (args, context) => {
    const persona = await personaOf(context);
    if (!persona) return errorOutcome('This session no longer exists');
    const { memory } = await appendMemory({ personaName: persona, content: args.entry, kind: 'journal', scope: 'short', ttlMs: JOURNAL_TTL_MS, importance: 0.3, sessionId: context.sessionId });
    return { isError: false, content: `Journal entry #${memory.id} kept until ${memory.expiresAt?.toISOString().slice(0, 10)}.` };
  },
});

export const memoryTools = [recallTool, rememberTool, journalTool, forgetMemoryTool];
