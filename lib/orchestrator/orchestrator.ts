// The orchestrator: one per process, on globalThis, started only by server.ts. It owns the
// sessions' lifecycle (create, pause, resume, delete) and the event bus the realtime layer reads.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  layerModelConfigSchema,
  mergeModels,
  sessionParamsSchema,
  type ModelsConfig,
  type SessionParams,
} from '@/lib/config/model-config';
import { readPersonaBytes } from '@/lib/personas/persona-files';
import { personaNameSchema } from '@/lib/personas/persona-name';
import { deleteSessionLogs, writePersonaSnapshot } from '@/lib/store/session-logs';
import {
  deleteSession,
  findSession,
  insertSession,
  listSessionIdsByStatus,
  updateSession,
  type SessionRecord,
} from '@/lib/store/sessions-repository';
import { readSettings } from '@/lib/store/settings-repository';
import { EventBus } from './events';

export const createSessionInputSchema = z
  .object({
    name: z.string().trim().max(120, 'name must be at most 120 characters').optional(),
    persona: personaNameSchema,
    models: z
      .object({ c_model: layerModelConfigSchema.optional(), s_model: layerModelConfigSchema.optional() })
      .strict()
      .optional(),
    params: sessionParamsSchema.partial().optional(),
  })
  .strict();
export type CreateSessionInput = z.infer<typeof createSessionInputSchema>;

export const updateSessionInputSchema = z
  .object({
    name: z.string().trim().min(1, 'name must not be empty').max(120, 'name must be at most 120 characters').optional(),
    models: z
      .object({ c_model: layerModelConfigSchema.optional(), s_model: layerModelConfigSchema.optional() })
      .strict()
      .optional(),
    params: sessionParamsSchema.partial().optional(),
  })
  .strict();
export type UpdateSessionInput = z.infer<typeof updateSessionInputSchema>;

const sessionNotFoundBrand = Symbol.for('agentcsd.SessionNotFoundError');

export class SessionNotFoundError extends Error {
  readonly [sessionNotFoundBrand] = true;

  /** instanceof fails across the server.ts / Next bundle boundary (two module copies): use this. */
  static is(error: unknown): error is SessionNotFoundError {
    return typeof error === 'object' && error !== null && sessionNotFoundBrand in error;
  }

  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} does not exist`);
    this.name = 'SessionNotFoundError';
  }
}

function defaultSessionName(persona: string, now: Date): string {
  const stamp = now.toISOString().slice(0, 16).replace('T', ' ');
  return `${persona} · ${stamp}`;
}

export class Orchestrator {
  readonly bus = new EventBus();
  private started = false;

  async start(): Promise<void> {
    this.started = true;
  }

  /** Closing the program pauses every running session (seed 000 section 10.4). */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    for (const id of await listSessionIdsByStatus({ status: 'active' })) {
      await this.setStatus(id, 'paused', 'server shut down');
    }
  }

  async createSession(input: CreateSessionInput): Promise<SessionRecord> {
    const { bytes, hash } = readPersonaBytes(input.persona);
    const settings = await readSettings();
    const models: ModelsConfig = mergeModels(input.models ?? {}, settings.models);
    const params: SessionParams = { ...settings.params, ...input.params };
    const id = randomUUID();
    const now = new Date();
    // Snapshot first: a row without its snapshot would be a session that cannot prove its persona.
    writePersonaSnapshot({ sessionId: id, content: bytes });
    try {
      const session = await insertSession({
        id,
        name: input.name || defaultSessionName(input.persona, now),
        personaName: input.persona,
        personaHash: hash,
        models,
        params,
        status: 'active',
      });
      this.bus.emit('session-status', id, { status: 'active' });
      return session;
    } catch (error) {
      deleteSessionLogs(id);
      throw error;
    }
  }

  async updateSession(id: string, input: UpdateSessionInput): Promise<SessionRecord> {
    const current = await this.requireSession(id);
    const models = input.models ? mergeModels(input.models, current.models) : undefined;
    const params = input.params ? { ...current.params, ...input.params } : undefined;
    const updated = await updateSession({ id, name: input.name, models, params });
    if (!updated) throw new SessionNotFoundError(id);
    if (input.name !== undefined) this.bus.emit('session-updated', id, { name: updated.name });
    return updated;
  }

  async pauseSession(id: string): Promise<SessionRecord> {
    await this.requireSession(id);
    return this.setStatus(id, 'paused');
  }

  async resumeSession(id: string): Promise<SessionRecord> {
    await this.requireSession(id);
    return this.setStatus(id, 'active');
  }

  async deleteSession(id: string): Promise<void> {
    await this.requireSession(id);
    if (!(await deleteSession({ id }))) throw new SessionNotFoundError(id);
    deleteSessionLogs(id);
    this.bus.emit('session-deleted', id, {});
  }

  private async requireSession(id: string): Promise<SessionRecord> {
    const session = await findSession({ id });
    if (!session) throw new SessionNotFoundError(id);
    return session;
  }

  private async setStatus(id: string, status: SessionRecord['status'], reason?: string): Promise<SessionRecord> {
    const updated = await updateSession({ id, status, touch: true });
    if (!updated) throw new SessionNotFoundError(id);
    this.bus.emit('session-status', id, { status, ...(reason && { reason }) });
    return updated;
  }
}

const globalForOrchestrator = globalThis as typeof globalThis & { __agentcsdOrchestrator?: Orchestrator };

/** The running orchestrator; server.ts (or a test) must have started one. */
export function getOrchestrator(): Orchestrator {
  const orchestrator = globalForOrchestrator.__agentcsdOrchestrator;
  if (!orchestrator) throw new Error('The orchestrator is not running; start the app with `npm run dev`.');
  return orchestrator;
}

export async function startOrchestrator(): Promise<Orchestrator> {
  const existing = globalForOrchestrator.__agentcsdOrchestrator;
  if (existing) return existing;
  const orchestrator = new Orchestrator();
  globalForOrchestrator.__agentcsdOrchestrator = orchestrator;
  await orchestrator.start();
  return orchestrator;
}

export async function stopOrchestrator(): Promise<void> {
  const orchestrator = globalForOrchestrator.__agentcsdOrchestrator;
  globalForOrchestrator.__agentcsdOrchestrator = undefined;
  await orchestrator?.stop();
}
