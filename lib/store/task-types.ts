// A task (ARCHITECTURE §11): a goal, its limits, its plan, and how each step ends.
import { z } from 'zod';
import { withoutNul } from '@/lib/config/text-schema';

export const TASK_STATUSES = ['pending', 'running', 'blocked', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const FINAL_TASK_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

export const DEFAULT_MAX_STEPS = 20;
export const DEFAULT_TIMEOUT_S = 30 * 60;

export const taskConstraintsSchema = z
  .object({
    /** Steps (one model turn each, with its tool calls) before the task fails. Seed 003's guard. */
    max_steps: z.number().int().min(1).max(200).default(DEFAULT_MAX_STEPS),
    /** Wall time from the first step; waits for a person count too. */
    timeout_s: z.number().int().min(1).max(7 * 24 * 3600).default(DEFAULT_TIMEOUT_S),
    /** Input + output tokens over all of the task's model calls. */
    max_tokens: z.number().int().min(100).max(100_000_000).optional(),
    max_cost_usd: z.number().positive().max(10_000).optional(),
    /** The tools the task may use (the server refuses others); absent: the session's. */
    tools: z.array(z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/)).max(200).optional(),
  })
  .strict();
export type TaskConstraints = z.infer<typeof taskConstraintsSchema>;

export const submitTaskSchema = z
  .object({
    goal: withoutNul(z.string().trim().min(1, 'goal must not be empty').max(4_000, 'goal must be at most 4,000 characters')),
    context: withoutNul(z.string().max(20_000, 'context must be at most 20,000 characters')).optional(),
    constraints: taskConstraintsSchema.default({ max_steps: DEFAULT_MAX_STEPS, timeout_s: DEFAULT_TIMEOUT_S }),
  })
  .strict();
export type SubmitTaskInput = z.infer<typeof submitTaskSchema>;

export const planItemSchema = z
  .object({
    title: z.string().trim().min(1).max(300),
    status: z.enum(['pending', 'in_progress', 'done', 'skipped']).default('pending'),
  })
  .strict();
export type PlanItem = z.infer<typeof planItemSchema>;

export type BlockedOn =
  /** `child_task_id`: the question is a specialist's (issue 34); the answer goes to that task. */
  | { kind: 'question'; question: string; child_task_id?: string }
  | { kind: 'approval'; call_ids: string[] }
  | { kind: 'yield' }
  /** A daily allowance could not take the next step's call (issue 48): it goes on when the allowance can. */
  | { kind: 'allowance'; reason: string };

export interface TaskUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** A call whose model has no known price: the cost cap cannot be enforced exactly. */
  costUnknown: boolean;
}

/** How a step ends; the loop switches on it exhaustively. */
export type NextStep =
  | { kind: 'continue' }
  | { kind: 'finish'; result: string }
  | { kind: 'ask_user'; question: string }
  | { kind: 'yield' }
  | { kind: 'blocked_on_approval'; callIds: string[] }
  | { kind: 'budget_exhausted'; reason: string }
  | { kind: 'allowance'; reason: string }
  | { kind: 'failed'; reason: string };
