// One Subconscious cycle (seed 000 §3.3): Persona Core as the system prompt, the tagged inputs,
// the parsed <S_loud> <S_quiet> <M_AND_C> <trigger>, persisted as one transaction and then to
// the JSONL logs. A cycle that fails or is aborted persists nothing and keeps its number.
import type { BackendErrorKind } from '@/lib/backends/backend-error';
import { appendLogRecords } from '@/lib/store/session-logs';
import { insertCycle } from '@/lib/store/mind-repository';
import type { MessageRecord, MoodAndCriteriaRecord } from '@/lib/store/messages-repository';
import { appendLogsSafely, type MindContext } from './mind-context';
import { buildSubconsciousRequest } from './tags/build-prompts';
import { estimateRequestTokens, fitPair, historyBudget } from './token-budget';
import { parseSubconsciousOutput } from './tags/parse-subconscious-output';

export type CycleOutcome =
  | {
      kind: 'persisted';
      cycle: number;
      sLoud: string;
      sQuiet: string;
      trigger: boolean;
      wellFormed: boolean;
      messages: MessageRecord[];
      moodAndCriteria: MoodAndCriteriaRecord;
      previousMood: string | null;
    }
  | { kind: 'failed'; message: string; errorKind: BackendErrorKind; retryAfterMs?: number }
  | { kind: 'aborted' };

export async function runSubconsciousCycle(context: MindContext, cycle: number, signal: AbortSignal): Promise<CycleOutcome> {
  const config = context.session().models.s_model;
  const inputs = context.memory.subconsciousInputs();
  const build = (sQuietHistory: string[], sLoudHistory: string[]) =>
    buildSubconsciousRequest({ personaCore: context.personaCore, ...inputs.fixed, sQuietHistory, sLoudHistory, model: config.model, maxTokens: config.max_tokens });
  // The histories get what the model's window leaves after the persona, the latest exchange and the answer.
  const budget = historyBudget({ config, fixedTokens: estimateRequestTokens(build([], [])), calibration: context.calibration(config.model) });
  const [quietHistory, loudHistory] = fitPair(inputs.sQuiet, inputs.sLoud, budget, 0.6);
  const request = build(quietHistory.map((item) => item.text), loudHistory.map((item) => item.text));
  const result = await context.callModel({ layer: 'subconscious', config, request, signal });
  if (result.aborted) return { kind: 'aborted' };
  if (result.error) {
    return { kind: 'failed', message: result.error.message, errorKind: result.error.kind, retryAfterMs: result.error.retryAfterMs };
  }

  const parsed = parseSubconsciousOutput(result.text);
  // Untagged output is kept as a private thought rather than lost; it never reaches the chat.
  const sQuiet = parsed.wellFormed ? parsed.sQuiet : result.text.trim();
  // A cycle without <M_AND_C> leaves the mood as it was (the Internal Dialog keeps its bearings).
  const previous = context.memory.shared.moodAndCriteria;
  const moodAndCriteria = parsed.mood || parsed.criteria ? { mood: parsed.mood, criteria: parsed.criteria } : (previous ?? { mood: '', criteria: '' });
  const persisted = await insertCycle({
    sessionId: context.sessionId,
    cycleNumber: cycle,
    sLoud: parsed.sLoud,
    sQuiet,
    trigger: parsed.trigger,
    ...moodAndCriteria,
  });
  const timestamp = persisted.moodAndCriteria.createdAt.toISOString();
  appendLogsSafely(() => {
    appendLogRecords({
      sessionId: context.sessionId,
      file: 'subconscious',
      records: [
        { timestamp, tag: 'S_loud', content: parsed.sLoud, cycle_number: cycle },
        { timestamp, tag: 'S_quiet', content: sQuiet, cycle_number: cycle },
        // One line per stored row, so the DB and the logs can be checked against each other.
        { timestamp, tag: 'trigger', content: String(parsed.trigger), cycle_number: cycle },
      ],
    });
    appendLogRecords({
      sessionId: context.sessionId,
      file: 'moodAndCriteria',
      records: [
        { timestamp, tag: 'mood', content: moodAndCriteria.mood, cycle_number: cycle },
        { timestamp, tag: 'criteria', content: moodAndCriteria.criteria, cycle_number: cycle },
      ],
    });
  }, context.sessionId);
  context.memory.recordCycle({ cycle, sLoud: parsed.sLoud, sQuiet, moodAndCriteria });
  return {
    kind: 'persisted',
    cycle,
    sLoud: parsed.sLoud,
    sQuiet,
    trigger: parsed.trigger,
    wellFormed: parsed.wellFormed,
    messages: persisted.messages,
    moodAndCriteria: persisted.moodAndCriteria,
    previousMood: previous?.mood ?? null,
  };
}
