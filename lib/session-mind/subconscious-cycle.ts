// One Subconscious cycle (seed 000 §3.3): Persona Core as the system prompt, the tagged inputs,
// the parsed <S_loud> <S_quiet> <M_AND_C> <trigger>, persisted as one transaction and then to
// the JSONL logs. A cycle that fails or is aborted persists nothing and keeps its number.
import { inSpan } from '@/lib/telemetry/traces';
import type { BackendErrorKind } from '@/lib/backends/backend-error';
import { appendLogRecords, logRecordOf, moodLogRecords } from '@/lib/store/session-logs';
import { insertCycle } from '@/lib/store/mind-repository';
import { messageJson, moodAndCriteriaJson, type MessageRecord, type MoodAndCriteriaRecord } from '@/lib/store/messages-repository';
import type { EventBus, SpontaneousOutcome } from '@/lib/mind/events';
import type { CycleOutcome } from '@/lib/mind/outcomes';
import type { ForegroundGate } from './foreground-gate';
import { appendLogsSafely, yieldToIO, type MindContext } from './mind-context';
import { summarise } from './context-summaries';
import { fitInternalDialogPrompt } from './turn-requests';
import { buildSubconsciousRequest } from '@/lib/mind/tags/build-prompts';
import { estimateRequestTokens, fitPairSteadily, historyBudget } from '@/lib/mind/token-budget';
import { parseSubconsciousOutput } from '@/lib/mind/tags/parse-subconscious-output';
import { FencedWriteError } from '@/lib/store/lease-fence';
import { failureText, logFailure } from '@/lib/store/store-faults';


/** Fits the Subconscious's histories to its budget, the summary in effect first. */
function subconsciousRequest(context: MindContext, budgetShare: number, restEnded: string | null = null) {
  const config = context.session().models.s_model;
  const inputs = context.memory.subconsciousInputs();
  const summary = context.memory.summaryEntry('subconscious');
  const build = (sQuietHistory: string[], sLoudHistory: string[]) =>
    buildSubconsciousRequest({
      personaCore: context.personaCore,
      ...inputs.fixed,
      sQuietHistory: summary ? [summary.text, ...sQuietHistory] : sQuietHistory,
      sLoudHistory,
      model: config.model,
      maxTokens: config.max_tokens,
      restEnded,
    });
  // The histories get what the model's window leaves after the persona, the latest exchange,
  // the summary and the answer.
  const budget = Math.floor(historyBudget({ config, fixedTokens: estimateRequestTokens(build([], [])), calibration: context.calibration(config.model) }) * budgetShare);
  const { kept, window } = fitPairSteadily(inputs.sQuiet, inputs.sLoud, { budget, share: 0.6, maxEntries: context.memory.windowEntryLimit, window: context.memory.subconsciousWindow });
  context.memory.subconsciousWindow = window;
  const [quiet, loud] = kept;
  const dropped = [
    ...inputs.sQuiet.slice(0, inputs.sQuiet.length - quiet.length).map((item) => ({ ...item, text: `S_quiet: ${item.text}` })),
    ...inputs.sLoud.slice(0, inputs.sLoud.length - loud.length).map((item) => ({ ...item, text: `S_loud: ${item.text}` })),
  ].sort((a, b) => (a.cycle ?? 0) - (b.cycle ?? 0));
  return { config, request: build(quiet.map((item) => item.text), loud.map((item) => item.text)), dropped };
}

/**
 * Every N cycles (or when compacting after a "prompt too long"), what no longer fits is folded
 * into each layer's summary before the prompt is built.
 */
async function foldDropped(context: MindContext, budgetShare: number, signal: AbortSignal): Promise<void> {
  const subconscious = await summarise(context, { layer: 'subconscious', previous: context.memory.summaries.subconscious, dropped: subconsciousRequest(context, budgetShare).dropped, signal });
  if (subconscious) context.memory.fold(subconscious);
  const internal = await summarise(context, { layer: 'internal', previous: context.memory.summaries.internal, dropped: fitInternalDialogPrompt(context, { moodAndCriteria: context.memory.shared.moodAndCriteria, userMessage: null, sLoud: null }, 1).dropped, signal });
  if (internal) context.memory.fold(internal);
}

/** How the cycle comes out of a rest (mind-rest.ts): nothing new to read (`idle`), or a chosen rest that ran out. */
export interface CycleRest {
  idle: boolean;
  restEnded: string | null;
}

/** One cycle as an `invoke_agent <persona>` span of the Subconscious layer. */
export function runSubconsciousCycle(context: MindContext, cycle: number, signal: AbortSignal, rest: CycleRest = { idle: false, restEnded: null }): Promise<CycleOutcome> {
  return inSpan({ kind: 'agent', persona: context.session().personaName, sessionId: context.sessionId, layer: 'subconscious', cycle }, () => runCycle(context, cycle, signal, rest));
}

async function runCycle(context: MindContext, cycle: number, signal: AbortSignal, rest: CycleRest): Promise<CycleOutcome> {
  if (cycle % context.session().params.summary_every_n === 0) await foldDropped(context, 1, signal);
  let { config, request } = subconsciousRequest(context, 1, rest.restEnded);
  let result = await context.callModel({ layer: 'subconscious', config, request, signal });
  if (result.error?.kind === 'prompt_too_long' && !signal.aborted) {
    // The backend counts differently than we do: compact to half the budget, retry once.
    await foldDropped(context, 0.5, signal);
    ({ config, request } = subconsciousRequest(context, 0.5, rest.restEnded));
    result = await context.callModel({ layer: 'subconscious', config, request, signal });
  }
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
  // A reply that started meanwhile goes first; the result is held, then persisted whole.
  await context.yieldToReplies();
  if (signal.aborted) return { kind: 'aborted' };
  await yieldToIO();
  const persisted = await insertCycle({
    sessionId: context.sessionId,
    cycleNumber: cycle,
    sLoud: parsed.sLoud,
    sQuiet,
    trigger: parsed.trigger,
    ...moodAndCriteria,
  });
  const { createdAt } = persisted.moodAndCriteria;
  await yieldToIO();
  appendLogsSafely(() => {
    // One line per stored row (trigger included), so the DB and the logs can be checked against
    // each other and a line lost to a crash can be replayed from the DB (log-reconcile.ts).
    appendLogRecords({ sessionId: context.sessionId, file: 'subconscious', records: persisted.messages.map(logRecordOf) });
    appendLogRecords({
      sessionId: context.sessionId,
      file: 'moodAndCriteria',
      records: moodLogRecords({ createdAt, cycleNumber: cycle, ...moodAndCriteria }),
    });
  }, context.sessionId);
  context.memory.recordCycle({ cycle, sLoud: parsed.sLoud, sQuiet, moodAndCriteria, idle: rest.idle });
  return {
    kind: 'persisted',
    cycle,
    sLoud: parsed.sLoud,
    sQuiet,
    trigger: parsed.trigger,
    rest: parsed.rest,
    wellFormed: parsed.wellFormed,
    messages: persisted.messages,
    moodAndCriteria: persisted.moodAndCriteria,
    previousMood: previous?.mood ?? null,
  };
}

/** A persisted cycle told to the page: its output, and the mood when it changed. */
export function announceCycle(bus: EventBus, sessionId: string, outcome: Extract<CycleOutcome, { kind: 'persisted' }>, spontaneous: SpontaneousOutcome): void {
  const { mood, criteria } = outcome.moodAndCriteria;
  bus.emit('subconscious-output', sessionId, {
    cycle: outcome.cycle,
    sLoud: outcome.sLoud,
    sQuiet: outcome.sQuiet,
    mood,
    criteria,
    trigger: outcome.trigger,
    rest: outcome.rest,
    wellFormed: outcome.wellFormed,
    spontaneous,
    messages: outcome.messages.map(messageJson),
    moodAndCriteria: moodAndCriteriaJson(outcome.moodAndCriteria),
  });
  if (mood !== outcome.previousMood) bus.emit('mood-changed', sessionId, { cycle: outcome.cycle, mood, criteria, previousMood: outcome.previousMood });
}

/**
 * A cycle as background work: it first gives way to a reply running anywhere in this process
 * (within its allowance, foreground-gate.ts), then runs; a stop aborts it. Never throws: a failure
 * to save is a failed outcome.
 */
export async function runCycleGivingWay(input: {
  context: MindContext;
  cycle: number;
  rest: CycleRest;
  foreground: ForegroundGate;
  stop: AbortSignal;
  setGiveWay: (giveWay: () => Promise<void> | undefined) => void;
}): Promise<CycleOutcome> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  input.stop.addEventListener('abort', abort, { once: true });
  try {
    const giveWay = input.foreground.allowance(controller.signal);
    input.setGiveWay(giveWay);
    await giveWay();
    // Stopped while it waited for a reply: nothing was called, nothing to keep.
    return controller.signal.aborted ? { kind: 'aborted' } : await runSubconsciousCycle(input.context, input.cycle, controller.signal, input.rest);
  } catch (error) {
    // Its session moved on while this process was away: nothing was kept, and this mind ends.
    if (error instanceof FencedWriteError) return { kind: 'aborted' };
    logFailure(`[mind ${input.context.sessionId}] cycle ${input.cycle} failed`, error);
    return { kind: 'failed', message: `Could not save the cycle: ${failureText(error)}`, errorKind: 'protocol' };
  } finally {
    input.setGiveWay(() => undefined);
    input.stop.removeEventListener('abort', abort);
  }
}
