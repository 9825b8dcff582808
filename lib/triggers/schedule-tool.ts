// The agent's own `schedule` tool (issue 29): "remind me tomorrow at 9" in conversation. It makes,
// lists and cancels the session's schedules. A one-shot reminder within 30 days runs without a
// card; a recurring schedule, or one further away, asks the person first (approvalFor) — and the
// person's always-allow or deny rules apply to it like to any tool.
import { z } from 'zod';
import { listSchedules, updateSchedule } from '@/lib/store/triggers-repository';
import { builtinTool, errorOutcome, type ApprovalPolicy } from '@/lib/tools/tool-types';
import { createSchedule, createScheduleSchema, ScheduleError } from './schedule-service';
import { timeZoneSchema } from '@/lib/config/time-zone';
import { nextFireAfter } from './schedule-times';

const WITHOUT_CARD_MS = 30 * 24 * 3600_000;

const args = z
  .object({
    operation: z.enum(['create', 'list', 'cancel']),
    kind: z.enum(['once', 'cron']).optional().describe('once: a local time ("2026-12-01 09:00"); cron: five fields ("0 8 * * 1-5")'),
    when: z.string().max(200).optional().describe('the time or cron expression, read in time_zone'),
    time_zone: timeZoneSchema.optional().describe('IANA zone of the person, e.g. Europe/Madrid (default: the server’s)'),
    message: z.string().max(4_000).optional().describe('what you will be told when it fires (a reminder)'),
    task_goal: z.string().max(2_000).optional().describe('instead of a message: a task to start when it fires'),
    name: z.string().max(120).optional(),
    id: z.string().uuid().optional().describe('the schedule to cancel'),
  })
  .strict();
type Args = z.infer<typeof args>;

const serverZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** A recurring schedule, or a one-shot more than 30 days away, needs the person's approval. */
export function scheduleApproval(call: Args, now = new Date()): ApprovalPolicy {
  if (call.operation !== 'create') return 'never';
  if (call.kind !== 'once' || !call.when) return 'required';
  try {
    const at = nextFireAfter({ kind: 'once', expression: call.when, timeZone: call.time_zone ?? serverZone() }, now);
    return at && at.getTime() - now.getTime() <= WITHOUT_CARD_MS ? 'never' : 'required';
  } catch {
    return 'required'; // refused when it runs anyway
  }
}

export const scheduleTool = {
  ...builtinTool({
    name: 'schedule',
    traits: ['schedules'],
    description:
      'Keep an appointment: create a reminder or a recurring job for this session (operation "create" with kind, when, time_zone and message or task_goal), list them, or cancel one by id. A one-shot reminder within 30 days needs no approval; recurring ones ask the person.',
    args,
    approval: 'required',
    // What it schedules runs later, when no one is looking: a way out for an injected instruction (§20).
    sendsOut: (call) => call.operation === 'create',
    describeCall: (call) =>
      call.operation === 'create' ? `${call.kind === 'cron' ? 'every' : 'at'} ${call.when ?? '?'} (${call.time_zone ?? serverZone()}): ${(call.message ?? call.task_goal ?? '').slice(0, 120)}` : call.operation === 'cancel' ? `cancel ${call.id ?? '?'}` : 'list',
    run: async (call, context) => {
      if (call.operation === 'list') {
        const mine = await listSchedules({ sessionId: context.sessionId, states: ['active', 'paused'] });
        if (mine.length === 0) return { isError: false, content: 'No schedules.' };
        return { isError: false, content: mine.map((entry) => `${entry.id} · ${entry.name} · ${entry.kind} ${entry.expression} (${entry.timeZone}) · ${entry.state} · next ${entry.nextFireAt?.toISOString() ?? '—'}`).join('\n') };
      }
      if (call.operation === 'cancel') {
        const target = call.id ? (await listSchedules({ sessionId: context.sessionId })).find((entry) => entry.id === call.id) : undefined;
        if (!target) return errorOutcome(`No schedule ${call.id ?? '(no id given)'} in this session: list them first`);
        await updateSchedule(target.id, { state: 'paused', lastResult: 'cancelled by the agent' });
        return { isError: false, content: `Cancelled "${target.name}".` };
      }
      if (!call.kind || !call.when) return errorOutcome('create needs kind ("once" or "cron") and when');
      if (!call.message === !call.task_goal) return errorOutcome('create needs either message or task_goal');
      const body = createScheduleSchema.safeParse({
        ...(call.name && { name: call.name }),
        kind: call.kind,
        expression: call.when,
        time_zone: call.time_zone ?? serverZone(),
        action: call.message ? { kind: 'message', text: call.message } : { kind: 'task', goal: call.task_goal },
      });
      if (!body.success) return errorOutcome(body.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
      try {
        const made = await createSchedule({ sessionId: context.sessionId, body: body.data, createdBy: 'agent', now: new Date() });
        return { isError: false, content: `Scheduled "${made.name}" (${made.id}); first at ${made.nextFireAt!.toISOString()} (${made.timeZone}).` };
      } catch (error) {
        if (error instanceof ScheduleError) return errorOutcome(error.message);
        throw error;
      }
    },
  }),
  approvalFor: (call: Args) => scheduleApproval(call),
};
