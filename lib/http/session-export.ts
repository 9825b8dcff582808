// A session exported whole: JSON with everything (API keys removed, as in every public shape) and
// a Markdown transcript a person can read.
import { decisionAuthorWords } from '@/lib/store/tool-call-types';
import { messageJson, moodAndCriteriaJson, type readWholeSession } from '@/lib/store/messages-repository';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import { toolCallJson, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import type { MemoryRecord } from '@/lib/memory/memory-store';
import { sessionJson } from './session-json';
import { storableDeep } from '@/lib/store/storable-text';
import { linkFileLines, type exportedFiles } from './session-files-io';

type Whole = Awaited<ReturnType<typeof readWholeSession>>;

/** Version 2 adds the persona snapshot the session ran with (its exact text), for import; 3 the files, embedded. */
export const exportVersion = 3;

export function sessionExportJson(
  session: SessionRecord,
  whole: Whole,
  personaSnapshot: string | null,
  toolCalls: ToolCallRecord[] = [],
  memories: MemoryRecord[] = [],
  files: Awaited<ReturnType<typeof exportedFiles>> = [],
) {
  // Rows stored before NULs were replaced still hold them: the file gets what the store keeps now,
  // so import takes everything export writes.
  return storableDeep({
    format: 'agentcsd-session',
    version: exportVersion,
    exported_at: new Date().toISOString(),
    // What this app holds as untrusted is its own judgement: an import is untrusted as a whole anyway.
    session: { ...sessionJson(session), untrusted_source: undefined, dormant: undefined },
    persona_snapshot: personaSnapshot === null ? null : { name: session.personaName, hash: session.personaHash, content: personaSnapshot },
    messages: whole.messages.map(messageJson),
    mood_and_criteria: whole.moodAndCriteria.map(moodAndCriteriaJson),
    context_summaries: whole.summaries.map((row) => ({
      id: row.id,
      layer: row.layer,
      summary: row.summary,
      from_cycle: row.fromCycle,
      to_cycle: row.toCycle,
      created_at: row.createdAt.toISOString(),
    })),
    llm_calls: whole.calls.map((row) => ({
      layer: row.layer,
      backend: row.backend,
      model: row.model,
      started_at: row.startedAt.toISOString(),
      first_token_ms: row.firstTokenMs,
      duration_ms: row.durationMs,
      input_tokens: row.inputTokens,
      output_tokens: row.outputTokens,
      cache_read_tokens: row.cacheReadTokens,
      cache_write_tokens: row.cacheWriteTokens,
      cost_usd: row.costUsd,
      finish_reason: row.finishReason,
      error: row.error,
    })),
    tool_calls: toolCalls.map(toolCallJson),
    /** What the persona remembered from this session (issue 17). */
    memories: memories.map((memory) => ({
      kind: memory.kind,
      scope: memory.scope,
      content: memory.content,
      importance: memory.importance,
      pinned: memory.pinned,
      created_at: memory.createdAt.toISOString(),
      expires_at: memory.expiresAt?.toISOString() ?? null,
    })),
    /** Files sent, viewed and shown (issue 33): each with its SHA-256 and its bytes (base64). */
    files,
  });
}

/** Quotes text as a Markdown blockquote so nothing in it can restructure the document. */
function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

export function sessionTranscriptMarkdown(session: SessionRecord, whole: Whole, toolCalls: ToolCallRecord[] = []): string {
  const lines = [
    `# ${session.name}`,
    '',
    `- Persona: ${session.personaName}`,
    `- Created: ${session.createdAt.toISOString()}`,
    `- Internal Dialog: ${session.models.c_model.backend} · ${session.models.c_model.model}`,
    `- Subconscious: ${session.models.s_model.backend} · ${session.models.s_model.model}`,
    '',
    '## Conversation',
    '',
  ];
  for (const message of whole.messages.filter((row) => row.layer === 'external')) {
    const who = message.tag === 'ED_user' ? 'You' : message.spontaneous ? 'Agent (on its own)' : 'Agent';
    const note = message.interrupted ? ' — stopped before the end' : '';
    lines.push(`**${who}** · ${message.createdAt.toISOString()}${note}`, '', quote(linkFileLines(message.content)), '');
  }
  lines.push('## Internal Dialog', '');
  for (const message of whole.messages.filter((row) => row.layer === 'internal')) {
    lines.push(`**${message.tag}** · ${message.createdAt.toISOString()}`, '', quote(message.content || '(nothing)'), '');
  }
  if (toolCalls.length > 0) {
    lines.push('## Tool calls', '');
    for (const call of toolCalls) {
      const args = call.args ?? {};
      const subject = String(args.command ?? args.code ?? args.path ?? JSON.stringify(args));
      const decided = call.decision ? ` · ${call.decision.decision === 'approve' ? 'approved' : 'denied'} by ${decisionAuthorWords(call.decision.by, null)}${call.decision.reason ? `: ${call.decision.reason}` : ''}` : '';
      lines.push(`**${call.name}** · ${call.createdAt.toISOString()} · ${call.status}${call.exitCode !== null ? ` (exit ${call.exitCode})` : ''}${decided}`, '', quote(subject), '');
      if (call.result) lines.push(quote(call.result.length > 4_000 ? `${call.result.slice(0, 4_000)}\n[… ${call.result.length - 4_000} more characters in the JSON export]` : call.result), '');
    }
  }
  lines.push('## Subconscious', '');
  const moods = new Map(whole.moodAndCriteria.map((row) => [row.cycleNumber, row]));
  let cycle: number | null = null;
  for (const message of whole.messages.filter((row) => row.layer === 'subconscious' && row.tag !== 'trigger')) {
    if (message.cycleNumber !== cycle) {
      cycle = message.cycleNumber;
      const mood = cycle === null ? undefined : moods.get(cycle);
      lines.push(`### Cycle ${cycle} · ${message.createdAt.toISOString()}`, '');
      if (mood) lines.push(`Mood: ${mood.mood} — Criteria: ${mood.criteria}`, '');
    }
    lines.push(`**${message.tag}**`, '', quote(message.content || '(nothing)'), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
