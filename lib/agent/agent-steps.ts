// A turn as a sequence of steps (ARCHITECTURE §10): model call → its tool calls (committed,
// decided, run) → their results → the next model call, until the model answers without tools.
// No person's wait ever sits inside an open model request: a step's request has ended before
// its cards are shown. A turn cut by a restart continues from its stored steps.
import type { BackendMessage, BackendRequest, ContentBlock } from '@/lib/backends/model-backend';
import type { ModelCallResult } from '@/lib/mind/model-call';
import type { AgentStepRecord, AgentTurnRecord, ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { capForModel, type SessionToolbox, type StopKind } from './session-toolbox';
import { resultForModel } from './untrusted-turn';

/** Seed 003's guard: a turn that keeps calling tools ends here. */
export const MAX_TOOL_STEPS_PER_TURN = 25;

export interface AgentStepsInput {
  request: BackendRequest;
  toolbox: SessionToolbox;
  turn: Omit<AgentTurnRecord, 'status' | 'sessionId'>;
  /** Steps stored before a restart: replayed into the conversation, their open calls settled. */
  resumeSteps?: AgentStepRecord[];
  signal: AbortSignal;
  stopKind: () => StopKind;
  /** One model call; its text streams through `onText` (routed by the caller). */
  callModel(request: BackendRequest, onText: (text: string) => void): Promise<ModelCallResult>;
  /** The step's text as it streams, and the step's end (the caller flushes its tag router). */
  onStepText(text: string): void;
  onStepEnd(): void;
  maxSteps?: number;
  /** Before every model call: null to go on, or why the call may not be made (a task's budget). */
  beforeCall?(request: BackendRequest): string | null;
  /** After a step's tools ran: true ends the turn there (a task's finish_task, ask_user). */
  endAfterTools?(): boolean;
}

export interface AgentStepsResult {
  /** The last model call (null when the turn never called the model: a resumed turn shut down at once). */
  last: ModelCallResult | null;
  /** Steps that called tools (stored in agent_steps). */
  toolSteps: number;
  /** A shutdown came while a card waited or a call ran: the turn stays open for the restart. */
  leftOpen: boolean;
  limitReached: boolean;
  /** The turn's signal aborted (a Stop, or a shutdown) at some point of the steps. */
  stopped: boolean;
  /** `beforeCall` refused the next call: why. */
  budgetStop?: string;
}

function assistantBlocks(text: string, calls: ToolCallRecord[]): ContentBlock[] {
  return [
    ...(text ? [{ type: 'text' as const, text }] : []),
    ...calls.map((call) => ({ type: 'tool-call' as const, id: call.providerCallId, name: call.name, input: call.args ?? {} })),
  ];
}

function resultBlocks(calls: ToolCallRecord[], toolbox: SessionToolbox): ContentBlock[] {
  return calls.map((call) => {
    const images = toolbox.imagesOf(call.id);
    return {
      type: 'tool-result' as const,
      callId: call.providerCallId,
      content: resultForModel(capForModel(call.result ?? (call.isError ? 'The call failed without output' : '(no output)')), call.resultSource),
      isError: call.isError,
      ...(images && { images }),
    };
  });
}

const isFinal = (call: ToolCallRecord) => !['proposed', 'awaiting_approval', 'approved', 'running'].includes(call.status);

export async function runAgentSteps(input: AgentStepsInput): Promise<AgentStepsResult> {
  const result = await runSteps(input);
  // A shutdown between steps leaves a turn that already acted open too: the restart continues it.
  if (result.stopped && result.toolSteps > 0 && input.stopKind() === 'shutdown') result.leftOpen = true;
  return result;
}

async function runSteps(input: AgentStepsInput): Promise<AgentStepsResult> {
  const messages: BackendMessage[] = [...input.request.messages];
  const maxSteps = input.maxSteps ?? MAX_TOOL_STEPS_PER_TURN;
  let step = 0;
  let toolSteps = 0;

  // Settles a step's calls (all of them, in parallel: ungated ones run at once) and adds the
  // step to the conversation in the model's order — or reports that a shutdown left it open.
  const completeStep = async (text: string, calls: ToolCallRecord[]): Promise<boolean> => {
    const settled = await Promise.all(calls.map((call) => input.toolbox.settle(call, input.signal, input.stopKind)));
    if (!settled.every(isFinal)) return false;
    messages.push({ role: 'assistant', content: '', blocks: assistantBlocks(text, settled) });
    messages.push({ role: 'user', content: '', blocks: resultBlocks(settled, input.toolbox) });
    return true;
  };

  for (const stored of input.resumeSteps ?? []) {
    input.onStepText(stored.assistantText);
    input.onStepEnd();
    toolSteps += 1;
    step = stored.step + 1;
    if (!(await completeStep(stored.assistantText, stored.calls))) return { last: null, toolSteps, leftOpen: true, limitReached: false, stopped: true };
  }

  let last: ModelCallResult | null = null;
  while (!input.signal.aborted) {
    if (step >= maxSteps) return { last, toolSteps, leftOpen: false, limitReached: true, stopped: false };
    if (toolSteps > 0 && input.endAfterTools?.()) return { last, toolSteps, leftOpen: false, limitReached: false, stopped: false };
    // Read each step: a tool search may have loaded more definitions since the last one.
    const request = { ...input.request, messages, tools: input.toolbox.definitions() };
    const budgetStop = input.beforeCall?.(request);
    if (budgetStop) return { last, toolSteps, leftOpen: false, limitReached: false, stopped: false, budgetStop };
    last = await input.callModel(request, (text) => input.onStepText(text));
    const calls = last.toolCalls;
    if (last.error || last.aborted || calls.length === 0) {
      if (!last.error && !last.aborted) input.onStepEnd();
      return { last, toolSteps, leftOpen: false, limitReached: false, stopped: input.signal.aborted };
    }
    input.onStepEnd();
    const records = await input.toolbox.propose({ turn: input.turn, step, assistantText: last.text, calls, startApproved: true });
    toolSteps += 1;
    step += 1;
    if (!(await completeStep(last.text, records))) return { last, toolSteps, leftOpen: true, limitReached: false, stopped: true };
  }
  return { last, toolSteps, leftOpen: false, limitReached: false, stopped: true };
}
