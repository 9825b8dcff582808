// A client's own function tools (issue 78 §1): what a client of the Responses door offers with its
// request (Codex's shell, an Agents SDK function) is offered to the Internal Dialog for the turn
// that answers it, as `client__<name>` (never confused with the app's tools), and is never run
// here: a call of one is handed back to the client as a `function_call`, and the call waits — as a
// card waits for a person — for the output the client sends with its next request, a Stop, or ten
// minutes. The output is the client's own (its machine, its person's): it is the call's result as sent.
import { z } from 'zod';
import { processSlot } from '@/lib/process/process-state';
import { getToolCall } from '@/lib/store/tool-calls-repository';
import type { ApprovalBroker } from './approval-broker';
import type { Tool, ToolInputSchema, ToolOutcome } from './tool-types';

export const CLIENT_TOOL_PREFIX = 'client__';
/** How long a call waits for the client's output. */
export const CLIENT_OUTPUT_WAIT_MS = 10 * 60_000;

export interface ClientToolDefinition {
  /** The client's name for it (`^[a-zA-Z0-9_-]{1,56}$`: with the prefix, what every provider accepts). */
  name: string;
  description: string;
  parameters: ToolInputSchema;
}

export const clientToolNameSchema = z.string().regex(/^[a-zA-Z0-9_-]{1,56}$/, 'a function tool name is 1–56 letters, digits, _ or -');

export const isClientTool = (name: string) => name.startsWith(CLIENT_TOOL_PREFIX);
/** The client's own name for a call of `client__<name>`. */
export const clientNameOf = (name: string) => name.slice(CLIENT_TOOL_PREFIX.length);

/** Per session, the client tools offered for its next turn: set by the door just before it delivers, taken by that turn. */
const offers = processSlot('tools.client-offers', () => new Map<string, ClientToolDefinition[]>()).value;

export function offerClientTools(sessionId: string, tools: readonly ClientToolDefinition[]): void {
  if (tools.length > 0) offers.set(sessionId, [...tools]);
  else offers.delete(sessionId);
}

/** The tools a door offered for this session's next turn (once: the turn that answers takes them). */
export function takeClientTools(sessionId: string): ClientToolDefinition[] {
  const tools = offers.get(sessionId) ?? [];
  offers.delete(sessionId);
  return tools;
}

/** The Tool the registry offers for a client's function: its run waits for the client's output. */
export function clientTool(definition: ClientToolDefinition, broker: ApprovalBroker): Tool<Record<string, unknown>> {
  return {
    definition: {
      name: CLIENT_TOOL_PREFIX + definition.name,
      description: `${definition.description || definition.name} (Runs on the machine of the client you are answering, not here; its output comes back as the result.)`.slice(0, 4_000),
      inputSchema: definition.parameters,
    },
    approval: 'never',
    // Nothing runs or is read here: what it touches is the client's own, and its output goes to the
    // person the reply goes to. Offered as reading is (to guests too).
    traits: ['read_only'],
    source: 'builtin',
    args: z.record(z.string(), z.unknown()),
    describeCall: (args) => `${definition.name} on the client: ${JSON.stringify(args).slice(0, 200)}`,
    run: (_args, context) => waitForOutput(definition.name, context.callId, context.sessionId, broker, context.signal),
  };
}

/** Until the door stored the client's output on the call (and woke it), the turn stopped, or the wait ran out. */
async function waitForOutput(name: string, callId: string | undefined, sessionId: string, broker: ApprovalBroker, signal: AbortSignal): Promise<ToolOutcome> {
  if (!callId) return { isError: true, content: `${name} runs on the client, and this call cannot be handed to it.` };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), CLIENT_OUTPUT_WAIT_MS);
  timer.unref();
  const either = AbortSignal.any([signal, timeout.signal]);
  try {
    for (;;) {
      const woken = broker.wait(callId, sessionId, either); // registered before the read: no lost wake-up
      const call = await getToolCall({ id: callId });
      if (call?.finishedAt) return { isError: call.isError, content: call.result ?? '', statusOnly: true };
      if (signal.aborted) return { isError: true, cancelled: true, content: 'Cancelled: the turn was stopped before the client sent the output.' };
      if (timeout.signal.aborted) return { isError: true, content: `The client did not send the output of ${name} within ${CLIENT_OUTPUT_WAIT_MS / 60_000} minutes.` };
      await woken;
    }
  } finally {
    clearTimeout(timer);
  }
}
