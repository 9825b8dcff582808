// The Responses API's own shapes (issue 78 §1): the Response object, its output items (the reply as a
// message, a client's function calls as `function_call` items), and the documented stream of events
// — created, in progress, each item added with its parts, the deltas, each done, then completed (or
// failed) — each with its `sequence_number`. What the door says is decided in responses-door.ts.
import { randomBytes } from 'node:crypto';
import type { ToolCallJson } from '@/lib/store/tool-call-json';
import { clientNameOf } from '@/lib/tools/client-tools';
import type { DoorReply } from './door-conversation';

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export interface Shape {
  id: string;
  createdAt: number;
  model: string;
  instructions: string | null;
  previousResponseId: string | null;
  store: boolean;
  metadata: Record<string, string>;
  sessionId: string;
  /** The client's tools as it sent them (echoed on the response). */
  tools: unknown[];
}

export type ResponseBody = ReturnType<typeof responseObject>;

/** The Response object, as it stands. */
export function responseObject(shape: Shape, state: { status: 'in_progress' | 'completed' | 'failed'; output: Record<string, unknown>[]; usage?: DoorReply['usage']; error?: { code: string; message: string } }) {
  return {
    id: shape.id,
    object: 'response',
    created_at: shape.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: null,
    instructions: shape.instructions,
    max_output_tokens: null,
    model: shape.model,
    output: state.output,
    parallel_tool_calls: true,
    previous_response_id: shape.previousResponseId,
    reasoning: { effort: null, summary: null },
    store: shape.store,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: shape.tools,
    top_p: 1,
    truncation: 'disabled',
    usage: state.usage
      ? { input_tokens: state.usage.prompt, input_tokens_details: { cached_tokens: 0 }, output_tokens: state.usage.completion, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: state.usage.prompt + state.usage.completion }
      : null,
    user: null,
    metadata: { ...shape.metadata, session_id: shape.sessionId },
  };
}

export const messageItem = (id: string, text: string, status: 'in_progress' | 'completed') => ({
  type: 'message',
  id,
  status,
  role: 'assistant',
  content: status === 'in_progress' && !text ? [] : [{ type: 'output_text', text, annotations: [], logprobs: [] }],
});

/** A call of a client's function, as the client runs it: its own name, the call's id to answer with. */
export const functionCallItem = (call: ToolCallJson, status: 'in_progress' | 'completed') => ({
  type: 'function_call',
  id: `fc_${call.id.replace(/-/g, '')}`,
  call_id: call.id,
  name: clientNameOf(call.name),
  arguments: status === 'in_progress' ? '' : JSON.stringify(call.args ?? {}),
  status,
});

/** The output of a whole reply: its words (if any, or if nothing else), then the calls it hands over. */
export function outputOf(messageId: string, answer: DoorReply): Record<string, unknown>[] {
  const calls = answer.calls.map((call) => functionCallItem(call, 'completed'));
  return answer.text || calls.length === 0 ? [messageItem(messageId, answer.text, 'completed'), ...calls] : calls;
}

/** A stream of the documented events, written as server-sent events. */
export class ResponseEvents {
  private sequence = 0;
  private messageOpen = false;
  private readonly output: Record<string, unknown>[] = [];

  constructor(
    private readonly write: (chunk: string) => void,
    private readonly messageId: string,
  ) {}

  send(type: string, fields: Record<string, unknown>): void {
    this.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.sequence++, ...fields })}\n\n`);
  }

  /** A piece of the reply's words: the message item and its text part open with the first. */
  delta(text: string): void {
    if (!this.messageOpen) this.openMessage();
    this.send('response.output_text.delta', { item_id: this.messageId, output_index: 0, content_index: 0, delta: text, logprobs: [] });
  }

  /** The reply's end: its words closed, each call handed over as an item of its own; the output as it ends. */
  end(answer: DoorReply): Record<string, unknown>[] {
    if (!this.messageOpen && (answer.text || answer.calls.length === 0)) this.openMessage();
    if (this.messageOpen) {
      const item = messageItem(this.messageId, answer.text, 'completed');
      const where = { item_id: this.messageId, output_index: 0, content_index: 0 };
      this.send('response.output_text.done', { ...where, text: answer.text, logprobs: [] });
      this.send('response.content_part.done', { ...where, part: item.content[0] });
      this.send('response.output_item.done', { output_index: 0, item });
      this.output.push(item);
    }
    for (const call of answer.calls) {
      const index = this.output.length;
      const item = functionCallItem(call, 'completed');
      this.send('response.output_item.added', { output_index: index, item: functionCallItem(call, 'in_progress') });
      this.send('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: item.arguments });
      this.send('response.function_call_arguments.done', { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments });
      this.send('response.output_item.done', { output_index: index, item });
      this.output.push(item);
    }
    return this.output;
  }

  private openMessage(): void {
    this.messageOpen = true;
    this.send('response.output_item.added', { output_index: 0, item: messageItem(this.messageId, '', 'in_progress') });
    this.send('response.content_part.added', { item_id: this.messageId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
  }
}
