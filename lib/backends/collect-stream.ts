// Non-streaming callers collect the stream: one code path for every call.
import type { BackendError } from './backend-error';
import type { FinishReason, StreamPart, Usage } from './model-backend';

export interface CollectedStream {
  text: string;
  reasoning: string;
  toolCalls: Extract<StreamPart, { type: 'tool-call' }>[];
  usage?: Usage;
  finish?: { reason: FinishReason; rawReason: string | null };
  error?: BackendError;
  firstTokenMs?: number;
}

export async function collectStream(
  parts: AsyncIterable<StreamPart>,
  options: {
    now?: () => number;
    onText?: (text: string) => void;
    onPart?: (part: StreamPart) => void;
  } = {},
): Promise<CollectedStream> {
  const now = options.now ?? Date.now;
  const started = now();
  const collected: CollectedStream = { text: '', reasoning: '', toolCalls: [] };
  for await (const part of parts) {
    options.onPart?.(part);
    switch (part.type) {
      case 'text-delta':
        collected.firstTokenMs ??= now() - started;
        collected.text += part.text;
        options.onText?.(part.text);
        break;
      case 'reasoning-delta':
        collected.firstTokenMs ??= now() - started;
        collected.reasoning += part.text;
        break;
      case 'tool-call':
        collected.firstTokenMs ??= now() - started;
        collected.toolCalls.push(part);
        break;
      case 'usage':
        collected.usage = part.usage;
        break;
      case 'finish':
        collected.finish = { reason: part.reason, rawReason: part.rawReason };
        break;
      case 'error':
        collected.error = part.error;
        break;
      case 'retry':
        break;
    }
  }
  return collected;
}
