// Import what export writes (GET /api/sessions/:id/export?format=json): the file becomes a new
// session, paused, with a new id. Everything is validated before anything is written: a file is
// untrusted input. Ids in the file are never used to build a path or a key (new ones are made),
// names go through the same rules as everywhere, and an API key in a file is never imported.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { z } from 'zod';
import { hashPersona, readPersonaBytes } from '@/lib/personas/persona-files';
import { reconcileSessionLogs } from '@/lib/store/log-reconcile';
import { appendMemory, MEMORY_KINDS, updateMemory } from '@/lib/memory/memory-store';
import { insertImportedSession } from '@/lib/store/session-import-repository';
import { deleteSessionLogs, writePersonaSnapshot } from '@/lib/store/session-logs';
import { storePersonaSnapshot } from '@/lib/store/session-files';
import { hashArgs } from '@/lib/store/tool-calls-repository';
import { deleteSession, type SessionRecord } from '@/lib/store/sessions-repository';
import { readSettings } from '@/lib/store/settings-repository';
import { layerModelConfigSchema, sessionParamsSchema, type FallbackModelConfig, type ModelsConfig } from '@/lib/config/model-config';
import { personaContentSchema, personaNameSchema } from '@/lib/personas/persona-name';
import { storableText } from '@/lib/store/storable-text';
import { readEnv } from '@/lib/config/env';
import { workspaceDirFor } from '@/lib/tools/workspace';
import { FileImportError, importedFilesSchema, prepareImportedFiles, storeImportedFiles, type PreparedImport } from './session-files-io';

/**
 * The largest export we take: ~10,000 messages of chat is a few MiB (64 MiB leaves room), and
 * embedded files (base64) room for a few uploads at the upload cap.
 */
export function importBodyLimit(): number {
  return (64 + 8 * readEnv().AGENTCSD_UPLOAD_MAX_MB) * 1024 * 1024;
}

const isoDate = z.iso.datetime({ message: 'must be an ISO date-time' });
/** Generated text (replies, tool output, errors): a NUL is stored as ␀, as the store does (storable-text.ts). */
const text = (max: number) => z.string().max(max).transform(storableText);
const cycle = z.number().int().min(0).max(1_000_000_000);
const tokens = z.number().int().min(0).max(1_000_000_000_000);

/** A layer as export wrote it (public shape): the key fields are dropped, never read. */
const keyFieldsDropped = ({ api_key_set: _set, api_key_hint: _hint, api_key: _key, ...layer }: Record<string, unknown>) => layer;
const exportedLayerSchema = z
  .record(z.string(), z.unknown())
  .transform((layer) => {
    const dropped = keyFieldsDropped(layer);
    // Its fallbacks' keys too (issue 78 §2).
    return Array.isArray(dropped.fallbacks) ? { ...dropped, fallbacks: dropped.fallbacks.map((fallback: unknown) => (fallback && typeof fallback === 'object' ? keyFieldsDropped(fallback as Record<string, unknown>) : fallback)) } : dropped;
  })
  .pipe(layerModelConfigSchema);

const tagsByLayer = { external: ['ED_user', 'ED_agent'], internal: ['ID_loud', 'ID_quiet'], subconscious: ['S_loud', 'S_quiet', 'trigger'] } as const;

const messageSchema = z
  .object({
    id: z.number().int(),
    layer: z.enum(['external', 'internal', 'subconscious']),
    tag: z.string().max(32),
    content: text(2_000_000),
    cycle_number: cycle.nullable(),
    turn_id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'turn_id must be a plain id').nullable(),
    spontaneous: z.boolean(),
    interrupted: z.boolean().default(false),
    created_at: isoDate,
  })
  .strict()
  .refine((message) => (tagsByLayer[message.layer] as readonly string[]).includes(message.tag), { message: 'tag does not belong to its layer', path: ['tag'] });

export const sessionImportSchema = z
  .object({
    format: z.literal('agentcsd-session', { message: 'not an AgentCSD session export (format must be "agentcsd-session")' }),
    version: z.union([z.literal(1), z.literal(2), z.literal(3)], { message: 'unknown export version: this AgentCSD reads versions 1 to 3' }),
    exported_at: isoDate,
    session: z
      .object({
        id: z.string().max(100),
        name: z.string().trim().min(1).max(120),
        persona: personaNameSchema,
        persona_hash: z.string().max(200),
        status: z.enum(['active', 'paused', 'closed']),
        created_at: isoDate,
        last_activity_at: isoDate,
        models: z.object({ c_model: exportedLayerSchema, s_model: exportedLayerSchema }).strict(),
        params: sessionParamsSchema,
        // A specialist's session names the one it worked for; an import stands on its own (the link is not kept).
        parent_session_id: z.string().max(100).nullable().optional(),
      })
      .strict(),
    persona_snapshot: z.object({ name: personaNameSchema, hash: z.string().max(200), content: personaContentSchema }).strict().nullable().optional(),
    messages: z.array(messageSchema).max(1_000_000),
    mood_and_criteria: z
      .array(z.object({ id: z.number().int(), mood: text(100_000), criteria: text(100_000), cycle_number: cycle, created_at: isoDate }).strict())
      .max(1_000_000),
    context_summaries: z
      .array(
        z
          .object({ id: z.number().int(), layer: z.enum(['internal', 'subconscious']), summary: text(2_000_000), from_cycle: cycle, to_cycle: cycle, created_at: isoDate })
          .strict(),
      )
      .max(100_000),
    llm_calls: z
      .array(
        z
          .object({
            layer: z.enum(['internal', 'subconscious', 'summary', 'memory', 'embeddings', 'speech', 'test']),
            backend: z.string().max(40),
            model: z.string().max(200),
            started_at: isoDate,
            first_token_ms: z.number().int().min(0).nullable(),
            duration_ms: z.number().int().min(0),
            input_tokens: tokens,
            output_tokens: tokens,
            cache_read_tokens: tokens,
            cache_write_tokens: tokens,
            cost_usd: z.number().min(0).nullable(),
            finish_reason: z.string().max(40).nullable(),
            error: text(100_000).nullable(),
          })
          .strict(),
      )
      .max(1_000_000),
    /** Version 2 files from after the tools issue; the history of what the agent did. */
    tool_calls: z
      .array(
        z
          .object({
            turn_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
            task_id: z.string().max(64).nullable().optional(),
            step: z.number().int().min(0).max(10_000),
            position: z.number().int().min(0).max(10_000),
            provider_call_id: z.string().min(1).max(200),
            name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
            args: z.record(z.string(), z.unknown()).nullable(),
            approval: z.enum(['none', 'required']),
            status: z.enum(['proposed', 'awaiting_approval', 'approved', 'denied', 'expired', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted']),
            // `by`: who decided (issue 58), or the word an export before it wrote.
            decision: z
              .object({
                decision: z.enum(['approve', 'deny']),
                by: z.union([z.enum(['user', 'rule', 'policy']), z.object({ person_id: z.string().max(300).nullable(), via: z.string().max(300), name: text(200).optional() }).strict()]),
                reason: text(2_000).optional(),
              })
              .passthrough()
              .nullable(),
            result: text(2_000_000).nullable(),
            is_error: z.boolean(),
            exit_code: z.number().int().nullable(),
            dropped_bytes: z.number().int().min(0),
            created_at: isoDate,
            decided_at: isoDate.nullable(),
            started_at: isoDate.nullable(),
            finished_at: isoDate.nullable(),
          })
          .passthrough(),
      )
      .max(100_000)
      .optional(),
    /** What the persona remembered from the session; brought back for the importing persona. */
    memories: z
      .array(
        z
          .object({
            kind: z.enum(MEMORY_KINDS),
            scope: z.enum(['short', 'long']),
            content: text(2_000).refine((value) => value.trim().length > 0, 'must not be empty'),
            importance: z.number().min(0).max(1),
            pinned: z.boolean(),
            created_at: isoDate,
            expires_at: isoDate.nullable(),
          })
          .passthrough(),
      )
      .max(100_000)
      .optional(),
    /** Version 3: the files, embedded (checked and kept like uploads: session-files-io.ts). */
    files: importedFilesSchema.optional(),
  })
  .strict();

/** Calls that were not finished where the file came from never run here: they expire. */
const UNFINISHED = new Set(['proposed', 'awaiting_approval', 'approved', 'running']);

export type SessionImport = z.infer<typeof sessionImportSchema>;

/** The rows of the new session, in the file's order (ids are the database's to give). */
export function importedRows(file: SessionImport, sessionId: string) {
  const models: ModelsConfig = { c_model: file.session.models.c_model, s_model: file.session.models.s_model };
  return {
    session: {
      id: sessionId,
      name: file.session.name,
      personaName: file.session.persona,
      models,
      params: file.session.params,
      createdAt: new Date(file.session.created_at),
      lastActivityAt: new Date(file.session.last_activity_at),
      // Someone else's file: everything in it is untrusted content (§20).
      untrustedSource: `the imported file of the session "${file.session.name.slice(0, 100)}"`,
    },
    // Each piece keeps its source: later prompts show it as a placeholder until the owner vouches for it (issue 44).
    messages: file.messages.map((message) => ({
      untrustedSource: `the imported file of the session "${file.session.name.slice(0, 100)}"`,
      sessionId,
      layer: message.layer,
      tag: message.tag,
      content: message.content,
      cycleNumber: message.cycle_number,
      turnId: message.turn_id,
      spontaneous: message.spontaneous,
      interrupted: message.interrupted,
      createdAt: new Date(message.created_at),
    })),
    moodAndCriteria: file.mood_and_criteria.map((row) => ({ sessionId, mood: row.mood, criteria: row.criteria, cycleNumber: row.cycle_number, createdAt: new Date(row.created_at) })),
    summaries: file.context_summaries.map((row) => ({ sessionId, layer: row.layer, summary: row.summary, fromCycle: row.from_cycle, toCycle: row.to_cycle, createdAt: new Date(row.created_at), untrustedSource: `the imported file of the session "${file.session.name.slice(0, 100)}"` })),
    calls: file.llm_calls.map((row) => ({
      sessionId,
      layer: row.layer,
      backend: row.backend,
      model: row.model,
      startedAt: new Date(row.started_at),
      firstTokenMs: row.first_token_ms,
      durationMs: row.duration_ms,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      cacheReadTokens: row.cache_read_tokens,
      cacheWriteTokens: row.cache_write_tokens,
      costUsd: row.cost_usd,
      finishReason: row.finish_reason,
      error: row.error,
    })),
    toolCalls: (file.tool_calls ?? []).map((row) => {
      const unfinished = UNFINISHED.has(row.status);
      return {
        id: randomUUID(),
        sessionId,
        turnId: row.turn_id,
        taskId: row.task_id ?? null,
        step: row.step,
        position: row.position,
        providerCallId: row.provider_call_id,
        name: row.name,
        args: row.args === null ? null : JSON.stringify(row.args),
        argsHash: hashArgs(row.args),
        approval: row.approval,
        status: unfinished ? 'expired' : row.status,
        decision: row.decision === null ? null : JSON.stringify(row.decision),
        result: unfinished ? 'Expired: the session was imported before this call was decided or finished; it never ran here.' : row.result,
        isError: unfinished ? true : row.is_error,
        exitCode: row.exit_code,
        droppedBytes: row.dropped_bytes,
        createdAt: new Date(row.created_at),
        decidedAt: row.decided_at === null ? null : new Date(row.decided_at),
        startedAt: row.started_at === null ? null : new Date(row.started_at),
        finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
      };
    }),
  };
}

const loopbackHosts = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * A file must not choose what runs or where the user's key goes: a CLI path from a file would run
 * any program on resume, and a remote endpoint on the Anthropic backend would receive the key from
 * ANTHROPIC_API_KEY. So the CLI path is always the user's own, and an endpoint is kept only on
 * loopback (a local Ollama); otherwise the layer takes the user's default and the answer says so.
 */
export function safeImportedModels(models: ModelsConfig, defaults: ModelsConfig): { models: ModelsConfig; notes: string[] } {
  const notes: string[] = [];
  const layer = (name: 'c_model' | 's_model') => {
    const imported = models[name];
    const fallback = defaults[name];
    if (imported.endpoint && !loopbackHosts.test(new URL(imported.endpoint).hostname)) {
      notes.push(`${name}: the file's endpoint ${new URL(imported.endpoint).host} is not on this machine; the default ${fallback.backend} · ${fallback.model} is used instead`);
      const { api_key: _key, ...rest } = fallback;
      return rest;
    }
    const { cli_path: _path, fallbacks, ...rest } = imported;
    const own = (config: FallbackModelConfig) => {
      const { cli_path: _theirs, ...kept } = config;
      return config.backend === 'claude_code_cli' && fallback.cli_path ? { ...kept, cli_path: fallback.cli_path } : kept;
    };
    // Its fallbacks by the same rule (issue 78 §2): one that points off this machine is left out.
    const safe = fallbacks?.flatMap((config, index) => {
      if (!config.endpoint || loopbackHosts.test(new URL(config.endpoint).hostname)) return [own(config)];
      notes.push(`${name}: the file's fallback ${index + 1} points at ${new URL(config.endpoint).host}, not on this machine; it is left out`);
      return [];
    });
    return { ...own(rest), ...(safe?.length && { fallbacks: safe }) };
  };
  return { models: { c_model: layer('c_model'), s_model: layer('s_model') }, notes };
}

export class ImportRefusedError extends Error {}

/**
 * Writes the new session: persona snapshot first (a session row without it could not prove its
 * persona), then every row in one transaction, then the JSONL logs rebuilt from those rows. A
 * failure part-way removes what was written.
 */
export async function importSession(file: SessionImport): Promise<{ session: SessionRecord; notes: string[] }> {
  let snapshot: Buffer;
  if (file.persona_snapshot) {
    if (file.persona_snapshot.name !== file.session.persona) throw new ImportRefusedError('persona_snapshot.name does not match session.persona');
    snapshot = Buffer.from(file.persona_snapshot.content, 'utf8');
  } else {
    // Version 1 carried no snapshot: the persona file of that name on this machine stands in.
    try {
      snapshot = readPersonaBytes(file.session.persona).bytes;
    } catch {
      throw new ImportRefusedError(`This export has no persona snapshot and there is no persona "${file.session.persona}" here: create it first`);
    }
  }
  const { models: defaults } = await readSettings();
  // Files first: each is checked before anything is written, and the lines naming them follow them.
  let files: PreparedImport;
  try {
    files = await prepareImportedFiles(file.files ?? []);
  } catch (error) {
    if (error instanceof FileImportError) throw new ImportRefusedError(error.message);
    throw error;
  }
  const rows = importedRows(
    {
      ...file,
      messages: file.messages.map((message) => ({ ...message, content: files.rewrite(message.content) })),
      tool_calls: file.tool_calls?.map((call) => ({ ...call, result: call.result === null ? null : files.rewrite(call.result) })),
    },
    randomUUID(),
  );
  const { models, notes } = safeImportedModels(rows.session.models, defaults);
  writePersonaSnapshot({ sessionId: rows.session.id, content: snapshot });
  try {
    const session = await insertImportedSession({ ...rows, session: { ...rows.session, models, personaHash: hashPersona(snapshot) } });
    await storePersonaSnapshot(session.id, snapshot);
    await storeImportedFiles(session.id, files);
    await reconcileSessionLogs(session.id);
    for (const memory of file.memories ?? []) {
      if (memory.expires_at && new Date(memory.expires_at) <= new Date()) continue;
      const { memory: kept } = await appendMemory({ personaName: session.personaName, content: memory.content, kind: memory.kind, scope: memory.scope, importance: memory.importance, sessionId: session.id, now: new Date(memory.created_at), ...(memory.expires_at && { ttlMs: new Date(memory.expires_at).getTime() - new Date(memory.created_at).getTime() }) });
      if (memory.pinned && !kept.pinned) await updateMemory(kept.id, { pinned: true });
    }
    return { session, notes };
  } catch (error) {
    await deleteSession({ id: rows.session.id }).catch(() => false);
    deleteSessionLogs(rows.session.id);
    fs.rmSync(workspaceDirFor(rows.session.id), { recursive: true, force: true });
    throw error;
  }
}
