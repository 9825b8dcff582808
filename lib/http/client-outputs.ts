// The outputs a Responses client sends back for its own functions (issue 78 §1): each is stored on
// the call it answers — one of this session's, of a client's function, still waiting for it — and
// the step waiting on that call is woken wherever it runs. An output for a call that already has one
// (a client's retry, Codex resending its whole conversation) changes nothing.
import { z } from 'zod';
import type { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { finishToolCall, getToolCall } from '@/lib/store/tool-calls-repository';
import { isClientTool } from '@/lib/tools/client-tools';

export interface FunctionOutput {
  callId: string;
  output: string;
}

const outputPart = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const outputItem = z.object({ type: z.literal('function_call_output'), call_id: z.string().max(200), output: z.union([z.string(), z.array(outputPart)]) }).passthrough();

/** The `function_call_output` items of a request's input. */
export function functionOutputsOf(input: unknown): FunctionOutput[] {
  if (!Array.isArray(input)) return [];
  return input.flatMap((item) => {
    const parsed = outputItem.safeParse(item);
    if (!parsed.success) return [];
    const output = typeof parsed.data.output === 'string' ? parsed.data.output : parsed.data.output.map((part) => part.text ?? '').join('\n');
    return [{ callId: parsed.data.call_id, output }];
  });
}

/**
 * Stores each output on its waiting call. `turnId`: the turn that goes on now (null when none was
 * waiting); `unknown`: call ids that are no client function's call of this session.
 */
export async function answerClientCalls(orchestrator: Orchestrator, sessionId: string, outputs: readonly FunctionOutput[]): Promise<{ turnId: string | null; unknown: string[] }> {
  let turnId: string | null = null;
  const unknown: string[] = [];
  for (const { callId, output } of outputs) {
    const call = z.string().uuid().safeParse(callId).success ? await getToolCall({ id: callId }) : null;
    if (!call || call.sessionId !== sessionId || !isClientTool(call.name)) {
      unknown.push(callId);
      continue;
    }
    if (call.status !== 'running') continue; // answered before
    const answered = await finishToolCall({ id: call.id, status: 'succeeded', result: output, isError: false, running: call });
    if (!answered) continue; // stopped or answered meanwhile
    await orchestrator.wakeToolCall(answered);
    turnId = call.turnId;
  }
  return { turnId, unknown };
}
