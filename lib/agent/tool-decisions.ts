// A person's decision on a tool call, decided on the server: the call must be this session's,
// awaiting a decision, with the arguments the card showed; edited arguments must fit the tool;
// "always allow" makes the narrowest structural rule (never one for a compound command).
import { z } from 'zod';
import { findSession } from '@/lib/store/sessions-repository';
import { decideToolCall, getToolCall, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { insertRule, type ToolRuleRecord } from '@/lib/store/tool-rules-repository';
import { matcherForAlwaysAllow } from '@/lib/tools/approval-rules';
import { builtinTools } from './tool-registry';
import { decideCard, type Actor } from '@/lib/people/rights';

export const toolCallDecisionSchema = z
  .object({
    decision: z.enum(['approve', 'deny']),
    reason: z.string().trim().max(2_000).optional(),
    edited_args: z.record(z.string(), z.unknown()).optional(),
    remember: z.enum(['session', 'persona']).optional(),
    /** What the card showed: a decision about other arguments is refused. */
    args_hash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    session_id: z.string().uuid().optional(),
  })
  .strict();

export type ToolCallDecisionBody = z.infer<typeof toolCallDecisionSchema>;
export type ToolCallDecisionInput = ToolCallDecisionBody & { id: string };

export type ToolCallDecisionResult =
  | { ok: true; call: ToolCallRecord; rule: ToolRuleRecord | null; note?: string }
  | { ok: false; code: 'not_found' | 'conflict' | 'validation' | 'forbidden'; message: string; call?: ToolCallRecord };

/** A decision by `actor` (the page's owner, a chat's person, a door key's person), if the rights authority lets them. */
export async function applyToolCallDecision(input: ToolCallDecisionInput, actor: Actor): Promise<ToolCallDecisionResult> {
  const call = await getToolCall({ id: input.id });
  if (!call || (input.session_id !== undefined && call.sessionId !== input.session_id)) {
    return { ok: false, code: 'not_found', message: `No tool call ${input.id} in this session` };
  }
  const may = await decideCard(actor, { sessionId: call.sessionId, ownerOnly: call.ownerOnly, ...(input.remember && { rule: input.remember }) });
  if (may.verdict !== 'allow') return { ok: false, code: 'forbidden', message: `This card is not decided here: ${may.verdict === 'refuse' ? may.reason : 'the owner decides it'}` };
  if (input.decision === 'deny' && (input.edited_args || input.remember)) {
    return { ok: false, code: 'validation', message: 'A denial takes a reason only: no edited arguments, no rule' };
  }
  const tool = builtinTools.find((candidate) => candidate.definition.name === call.name);
  if (input.edited_args) {
    const parsed = tool?.args.safeParse(input.edited_args);
    if (!parsed?.success) {
      return { ok: false, code: 'validation', message: `The edited arguments do not fit ${call.name}: ${parsed?.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') ?? 'unknown tool'}` };
    }
  }
  const outcome = await decideToolCall({
    sessionId: call.sessionId,
    id: call.id,
    argsHash: input.args_hash,
    decision: {
      decision: input.decision,
      by: { person_id: actor.person?.id ?? null, via: actor.via, ...(actor.person && { name: actor.person.name }) },
      ...(input.reason && { reason: input.reason }),
      ...(input.edited_args && { editedArgs: input.edited_args }),
    },
  });
  if (!outcome.ok) {
    if (outcome.reason === 'not_found') return { ok: false, code: 'not_found', message: `No tool call ${input.id}` };
    const message =
      outcome.reason === 'args_mismatch'
        ? 'The call has other arguments than the ones shown: reload and decide again'
        : `The call is no longer awaiting a decision (it is ${outcome.call?.status})`;
    return { ok: false, code: 'conflict', message, ...(outcome.call && { call: outcome.call }) };
  }
  if (!input.remember) return { ok: true, call: outcome.call, rule: null };
  const args = outcome.call.args ?? {};
  const matcher = matcherForAlwaysAllow({
    tool: call.name,
    ...(typeof args.command === 'string' && { command: args.command }),
    ...(typeof args.code === 'string' && { code: args.code }),
  });
  if (!matcher) {
    return { ok: true, call: outcome.call, rule: null, note: 'Approved once: a command with shell operators cannot become an always-allow rule' };
  }
  const session = await findSession({ id: call.sessionId });
  const rule = await insertRule({ scope: input.remember, sessionId: call.sessionId, personaName: session?.personaName ?? null, tool: call.name, effect: 'allow', matcher });
  return { ok: true, call: outcome.call, rule };
}
