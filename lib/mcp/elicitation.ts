// An MCP server asking the user for input in the middle of a call (elicitation, MCP 2025-11-25).
// Form mode: a card in the chat with the fields of the server's schema (flat primitives only, as
// the specification allows), defaults filled in; accept / decline / cancel. URL mode: the link and
// what it is for; the user opens it themselves. The answer is checked against the schema on the
// server; its content goes to the MCP server and nowhere else — never into events, logs or the
// store. A form that asks for a password or a key is flagged: the specification says secrets must
// go through URL mode, and the card says so.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ElicitationField, ElicitationJson, ElicitationStatus } from '@/lib/mind/elicitation-json';

export type { ElicitationField, ElicitationJson, ElicitationStatus };

export type ElicitAnswer = { action: 'accept'; content?: Record<string, string | number | boolean | string[]> } | { action: 'decline' | 'cancel' };

export const elicitationAnswerSchema = z
  .object({
    /** The card's session: with several processes, where the question waits. */
    session_id: z.uuid().optional(),
    action: z.enum(['accept', 'decline', 'cancel']),
    content: z.record(z.string().max(200), z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)])).optional(),
  })
  .strict();

export type ElicitationAnswer = Omit<z.infer<typeof elicitationAnswerSchema>, 'session_id'>;

export class ElicitationError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict' | 'validation',
    message: string,
  ) {
    super(message);
    this.name = 'ElicitationError';
  }
}

const SENSITIVE = /pass(word|phrase|code)?|secret|token|api[\s_-]?key|private[\s_-]?key|\bpin\b|\botp\b|2fa|credit[\s_-]?card|card[\s_-]?number|cvv|\bssn\b|social security/i;

interface JsonSchemaProperty {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  anyOf?: { const?: unknown; title?: string }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown }[] };
  format?: string;
  default?: unknown;
}

/** The form's fields from the server's `requestedSchema` (flat object of primitives). */
export function fieldsOf(schema: { properties?: Record<string, unknown>; required?: string[] } | undefined): ElicitationField[] {
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {})
    .slice(0, 50)
    .map(([name, raw]) => {
      const property = (raw ?? {}) as JsonSchemaProperty;
      const options = property.type === 'array' ? (property.items?.enum ?? property.items?.anyOf?.map((option) => option.const)) : (property.enum ?? (property.oneOf ?? property.anyOf)?.map((option) => option.const));
      const choices = options?.map(String) ?? null;
      const type = property.type === 'number' || property.type === 'integer' || property.type === 'boolean' || property.type === 'array' ? property.type : 'string';
      const dflt = property.default;
      return {
        name,
        title: property.title ?? name,
        description: property.description ?? null,
        type,
        choices,
        format: property.format ?? null,
        default: typeof dflt === 'string' || typeof dflt === 'number' || typeof dflt === 'boolean' ? dflt : null,
        required: required.has(name),
        // Name and title say what is asked; a description may merely warn ("do not give us your pin").
        sensitive: property.format === 'password' || SENSITIVE.test(`${name.replace(/[_-]/g, ' ')} ${property.title ?? ''}`),
      };
    });
}

/** The content checked against the fields: types, choices, required ones present, nothing else. */
export function checkContent(fields: readonly ElicitationField[], content: Record<string, unknown>): Record<string, string | number | boolean | string[]> {
  const known = new Map(fields.map((field) => [field.name, field]));
  const checked: Record<string, string | number | boolean | string[]> = {};
  for (const [name, value] of Object.entries(content)) {
    const field = known.get(name);
    if (!field) throw new ElicitationError('validation', `the form has no field ${JSON.stringify(name)}`);
    if (field.type === 'boolean' && typeof value !== 'boolean') throw new ElicitationError('validation', `${field.title} must be true or false`);
    if ((field.type === 'number' || field.type === 'integer') && (typeof value !== 'number' || (field.type === 'integer' && !Number.isInteger(value)))) {
      throw new ElicitationError('validation', `${field.title} must be ${field.type === 'integer' ? 'a whole number' : 'a number'}`);
    }
    if (field.type === 'string' && typeof value !== 'string') throw new ElicitationError('validation', `${field.title} must be text`);
    if (field.type === 'array') {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || !(field.choices ?? []).includes(item))) {
        throw new ElicitationError('validation', `${field.title} must be a list of ${(field.choices ?? []).join(', ')}`);
      }
      checked[name] = value as string[];
      continue;
    }
    if (field.choices && !field.choices.includes(String(value))) throw new ElicitationError('validation', `${field.title} must be one of ${field.choices.join(', ')}`);
    checked[name] = value as string | number | boolean;
  }
  for (const field of fields) if (field.required && !(field.name in checked)) throw new ElicitationError('validation', `${field.title} is required`);
  return checked;
}

interface Pending {
  json: ElicitationJson;
  resolve: (answer: ElicitAnswer) => void;
  timer: NodeJS.Timeout;
}

export interface ElicitRequest {
  server: string;
  sessionId: string;
  mode: 'form' | 'url';
  message: string;
  requestedSchema?: { properties?: Record<string, unknown>; required?: string[] };
  url?: string;
}

/** Pending questions by id; each ends once (answered, or expired after `timeoutMs`). */
export class ElicitationBroker {
  private readonly pending = new Map<string, Pending>();
  private readonly ended = new Map<string, ElicitationJson>();

  constructor(
    private readonly emit: (elicitation: ElicitationJson) => void,
    private readonly timeoutMs = 10 * 60_000,
  ) {}

  ask(request: ElicitRequest): Promise<ElicitAnswer> {
    const fields = request.mode === 'form' ? fieldsOf(request.requestedSchema) : [];
    const url = request.mode === 'url' && request.url && /^https?:\/\//i.test(request.url) ? request.url : null;
    const json: ElicitationJson = {
      id: randomUUID(),
      session_id: request.sessionId,
      server: request.server,
      mode: request.mode,
      message: request.message.slice(0, 2_000),
      fields,
      url,
      sensitive: fields.some((field) => field.sensitive),
      status: 'pending',
      created_at: new Date().toISOString(),
    };
    if (request.mode === 'url' && !url) return Promise.resolve({ action: 'decline' });
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.end(json.id, 'expired', { action: 'cancel' }), this.timeoutMs);
      timer.unref();
      this.pending.set(json.id, { json, resolve, timer });
      this.emit(json);
    });
  }

  /** The user's answer, checked here; the content goes to the server only. */
  answer(id: string, answer: ElicitationAnswer): ElicitationJson {
    const pending = this.pending.get(id);
    if (!pending) {
      const ended = this.ended.get(id);
      if (ended) throw new ElicitationError('conflict', `this question was already ${ended.status}`);
      throw new ElicitationError('not_found', 'No such question is waiting (it may have been asked in another process, or expired)');
    }
    if (answer.action !== 'accept') return this.end(id, answer.action === 'decline' ? 'declined' : 'cancelled', { action: answer.action });
    const content = pending.json.mode === 'form' ? checkContent(pending.json.fields, answer.content ?? {}) : undefined;
    return this.end(id, 'accepted', { action: 'accept', ...(content && { content }) });
  }

  /** The questions a server asked a session while a call ran are over when the call is (done or stopped). */
  cancelFor(server: string, sessionId: string): void {
    for (const [id, pending] of this.pending) if (pending.json.server === server && pending.json.session_id === sessionId) this.end(id, 'cancelled', { action: 'cancel' });
  }

  list(sessionId: string): ElicitationJson[] {
    return [...this.pending.values()].map((pending) => pending.json).filter((json) => json.session_id === sessionId);
  }

  private end(id: string, status: ElicitationStatus, answer: ElicitAnswer): ElicitationJson {
    const pending = this.pending.get(id)!;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    const json = { ...pending.json, status };
    this.ended.set(id, json);
    if (this.ended.size > 200) this.ended.delete(this.ended.keys().next().value!);
    pending.resolve(answer);
    this.emit(json);
    return json;
  }
}
