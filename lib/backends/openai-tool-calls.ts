// Tool calls on OpenAI-compatible servers (PROTOCOLS.md "Tool calls on the wire"): streamed
// `tool_calls` fragments assembled by id (then index, then the latest call — gateways send
// sparse, reused or missing indexes), and calls that models leak into the text instead
// (`<tool_call>{…}</tool_call>`, Qwen3-Coder's `<function=…><parameter=…>`, bare JSON objects),
// recovered only when the whole text is calls to declared tools: prose about tools is prose.
import { randomUUID } from 'node:crypto';
import { parseToolInput, type BackendTool, type StreamPart } from './model-backend';

type ToolCallPart = Extract<StreamPart, { type: 'tool-call' }>;

export interface ToolCallFragment {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

export class OpenAIToolCallAccumulator {
  private readonly calls: PendingCall[] = [];
  private readonly byId = new Map<string, PendingCall>();
  private readonly byIndex = new Map<number, PendingCall>();

  push(fragment: ToolCallFragment): void {
    const id = fragment.id || undefined;
    const index = typeof fragment.index === 'number' ? fragment.index : undefined;
    let call = id ? this.byId.get(id) : undefined;
    if (!call && !id && index !== undefined) call = this.byIndex.get(index);
    if (!call && !id) call = this.calls.at(-1);
    if (!call) {
      call = { id: id ?? `call_${this.calls.length + 1}`, name: '', arguments: '' };
      this.calls.push(call);
      this.byId.set(call.id, call);
    }
    if (index !== undefined) this.byIndex.set(index, call);
    const name = fragment.function?.name;
    if (name && !call.name) call.name = name;
    const fragmentArguments = fragment.function?.arguments;
    if (fragmentArguments) call.arguments += fragmentArguments;
  }

  get size(): number {
    return this.calls.length;
  }

  finish(): ToolCallPart[] {
    return this.calls.map((call) => ({ type: 'tool-call', id: call.id, name: call.name, ...parseToolInput(call.arguments) }));
  }
}

/** Whether text may be the start of a leaked call: it is held back, not shown, until the end. */
export function mightBeLeakedCall(textSoFar: string): boolean {
  const start = textSoFar.trimStart();
  if (start === '') return true; // undecided yet
  return start.startsWith('<tool_call') || start.startsWith('<function=') || start.startsWith('{') || '<tool_call>'.startsWith(start) || '<function='.startsWith(start);
}

interface LeakedCall {
  name: string;
  input: Record<string, unknown>;
}

/** Splits text into consecutive top-level JSON objects, or null when anything else is there. */
function splitJsonObjects(text: string): string[] | null {
  const objects: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let index = 0; index < text.length; index += 1) {
    const character = text.charAt(index);
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (depth === 0) {
      if (/\s/.test(character)) continue;
      if (character !== '{') return null;
      start = index;
    }
    if (character === '"') inString = true;
    else if (character === '{') depth += 1;
    else if (character === '}') {
      depth -= 1;
      if (depth === 0) objects.push(text.slice(start, index + 1));
    }
  }
  return depth === 0 && objects.length > 0 ? objects : null;
}

function jsonCall(objectText: string): LeakedCall | null {
  let value: unknown;
  try {
    value = JSON.parse(objectText);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const name = record.name;
  if (typeof name !== 'string') return null;
  const extraKeys = Object.keys(record).filter((key) => !['name', 'arguments', 'parameters'].includes(key));
  if (extraKeys.length > 0) return null;
  let input = record.arguments ?? record.parameters ?? {};
  if (typeof input === 'string') {
    const parsed = parseToolInput(input);
    if (!parsed.input) return null;
    input = parsed.input;
  }
  if (!input || typeof input !== 'object' || Array.isArray(input)) return null;
  return { name, input: input as Record<string, unknown> };
}

/** Qwen3-Coder: `<function=NAME><parameter=K>value</parameter>…</function>`, values unquoted. */
function xmlCall(inner: string, tools: Map<string, BackendTool>): LeakedCall | null {
  const match = /^\s*<function=([^>\s]+)>([\s\S]*)<\/function>\s*$/.exec(inner);
  if (!match) return null;
  const [, name = '', body = ''] = match;
  const properties = (tools.get(name)?.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const input: Record<string, unknown> = {};
  const parameter = /<parameter=([^>\s]+)>\n?([\s\S]*?)\n?<\/parameter>/g;
  let rest = body;
  for (const found of body.matchAll(parameter)) {
    const [whole, key = '', raw = ''] = found;
    rest = rest.replace(whole, '');
    const type = properties[key]?.type;
    if (type && type !== 'string') {
      try {
        input[key] = JSON.parse(raw);
        continue;
      } catch {
        return null;
      }
    }
    input[key] = raw;
  }
  return rest.trim() === '' ? { name, input } : null;
}

/**
 * The calls the whole text is, or null when it is anything else (prose, a call to a tool that
 * was not declared, a half-written call).
 */
export function recoverLeakedToolCalls(text: string, declared: BackendTool[]): ToolCallPart[] | null {
  const tools = new Map(declared.map((tool) => [tool.name, tool]));
  if (tools.size === 0) return null;
  const trimmed = text.trim();
  if (trimmed === '') return null;
  let calls: LeakedCall[] = [];
  if (trimmed.startsWith('<')) {
    const wrapper = /<tool_call>([\s\S]*?)<\/tool_call>/g;
    let rest = trimmed;
    for (const found of trimmed.matchAll(wrapper)) {
      const [whole, inner = ''] = found;
      rest = rest.replace(whole, '');
      const call = inner.trim().startsWith('<') ? xmlCall(inner, tools) : jsonCall(inner.trim());
      if (!call) return null;
      calls.push(call);
    }
    if (rest.trim() !== '') return null;
  } else {
    const objects = splitJsonObjects(trimmed);
    if (!objects) return null;
    for (const objectText of objects) {
      const call = jsonCall(objectText);
      if (!call) return null;
      calls.push(call);
    }
  }
  if (calls.length === 0 || calls.some((call) => !tools.has(call.name))) return null;
  calls = calls.slice(0, 64);
  return calls.map((call, index) => ({ type: 'tool-call', id: `leaked_${randomUUID().slice(0, 8)}_${index + 1}`, name: call.name, input: call.input }));
}
