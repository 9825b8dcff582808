// One Internal Dialog turn (seed 000 §3.1–3.2): static prompt + Mood & Criteria, the user's
// words (none in a spontaneous turn), the undelivered S_loud and the ID_quiet window. The output
// is routed as it streams — ID_loud to the chat, ID_quiet to the Internal panel — and persisted
// as one transaction when it ends. A stopped or failed reply that said something is kept,
// marked interrupted; one that said nothing only marks its user messages as answered.
import { randomUUID } from 'node:crypto';
import { MAX_TOOL_STEPS_PER_TURN, runAgentSteps, type AgentStepsResult } from '@/lib/agent/agent-steps';
import { MCP_SERVER_NAME, PERMISSION_TOOL } from '@/lib/agent/agent-mcp-endpoint';
import type { StopKind } from '@/lib/agent/session-toolbox';
import type { BackendRequest, BackendTool, ContentBlock } from '@/lib/backends/model-backend';
import { type AgentStepRecord, type AgentTurnRecord, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import type { ModelCallResult } from '@/lib/mind/model-call';
import type { BackendErrorKind } from '@/lib/backends/backend-error';
import { appendLogRecords, logRecordOf } from '@/lib/store/session-logs';
import { insertTurn, markAnswered } from '@/lib/store/mind-repository';
import type { MessageRecord } from '@/lib/store/messages-repository';
import type { TurnOutcome } from '@/lib/mind/events';
import type { TurnResult } from '@/lib/mind/outcomes';
import type { TaskTurn } from '@/lib/tasks/task-turn';
import { memoryForTurn } from '@/lib/memory/turn-memory';
import { inSpan, taskTraceparent } from '@/lib/telemetry/traces';
import { skillsPromptSection } from '@/lib/skills/skill-tools';
import { markSessionUntrusted, sessionUntrustedSource, startCleanTurn } from '@/lib/store/untrusted-repository';
import { appendLogsSafely, type MindContext } from './mind-context';
import { buildInternalDialogRequest, type MoodAndCriteria } from '@/lib/mind/tags/build-prompts';
import { ReplyRouter, type RoutedDelta } from '@/lib/mind/tags/reply-router';
import { estimateRequestTokens, fitNewest, historyBudget } from '@/lib/mind/token-budget';
import { isImageRefusal, learnBlind } from '@/lib/mind/image-sight';
import { hasImages, rememberCaptions, shownFileLines, visualsForTurn, withoutFileLines, withoutImages, withVisuals } from './turn-visuals';

export interface TurnWork {
  turnId: string;
  spontaneous: boolean;
  /** The user messages this turn answers (several when they queued up during the last turn). */
  userMessages: MessageRecord[];
  /** The shared state taken at the start of the turn. */
  taken: ReturnType<MindContext['memory']['takeForTurn']>;
  /** A turn that acted before a restart: continued from its stored steps. */
  resume?: { turn: AgentTurnRecord; steps: AgentStepRecord[] };
  /** A task's step (lib/tasks): its brief, tools and budget hooks. */
  task?: TaskTurn;
  /** The W3C trace context the first of `userMessages` came with (a message typed in another process). */
  traceparent?: string;
}


export function newTurnId(): string {
  return randomUUID();
}

/**
 * Whether the turn's prompt holds untrusted content before it recalls or reads anything (§20,
 * issue 44). A chat turn starts clean — what earlier turns read is withheld from its window — and is
 * marked by the messages it answers (a webhook's payload, an MCP server's resource). A task's step,
 * and a turn continued after a restart, keep the mark: the task's notes and brief carry what its
 * earlier steps read.
 */
async function untrustedAtStart(sessionId: string, work: TurnWork): Promise<boolean> {
  if (!work.task && !work.resume) await startCleanTurn(sessionId);
  const answering = work.userMessages.find((message) => message.untrustedSource)?.untrustedSource;
  if (answering) await markSessionUntrusted(sessionId, answering);
  return (await sessionUntrustedSource(sessionId)) !== null;
}

/**
 * The Internal Dialog's request with ID_quiet_history fitted to what the window leaves after the
 * instructions, the M&C, the user's words, the summary and the answer; and what did not fit.
 */
export function fitInternalDialogPrompt(
  context: MindContext,
  prompt: { moodAndCriteria: MoodAndCriteria | null; userMessage: string | null; sLoud: string | null; task?: string | null; memory?: string | null },
  budgetShare: number,
  /** The tools the turn offers: their definitions take room in the window too. */
  tools?: BackendTool[],
  /** Images and documents shown with the user's words: they take room too. */
  visuals: readonly ContentBlock[] = [],
  /** The turn holds untrusted content already: its window shows what earlier turns wrote while reading (mind-memory.ts). */
  holdsUntrusted = false,
) {
  const config = context.session().models.c_model;
  const summary = context.memory.summaryEntry('internal');
  const skills = skillsPromptSection(context.skills());
  const build = (idQuietHistory: string[]) => {
    const request = buildInternalDialogRequest({
      ...prompt,
      idQuietHistory: summary ? [summary.text, ...idQuietHistory] : idQuietHistory,
      instructions: context.instructions,
      skills,
      model: config.model,
      maxTokens: config.max_tokens,
    });
    return { ...request, messages: request.messages.map((message) => withVisuals(message.content, visuals)), ...(tools?.length && { tools }) };
  };
  const budget = Math.floor(historyBudget({ config, fixedTokens: estimateRequestTokens(build([])), calibration: context.calibration(config.model) }) * budgetShare);
  const entries = context.memory.idQuietHistory(holdsUntrusted);
  const kept = fitNewest(entries, budget);
  return { request: build(kept.map((item) => item.text)), dropped: entries.slice(0, entries.length - kept.length) };
}

/** The turn as one `invoke_agent <persona>` span (a task's step is one too): its model and tool calls are its children. */
export function runInternalDialogTurn(
  context: MindContext,
  work: TurnWork,
  signal: AbortSignal,
  onDelta: (delta: RoutedDelta) => void,
  stopKind: () => StopKind = () => 'user',
): Promise<TurnResult> {
  // A task's step continues the task's own trace wherever and whenever it runs; a chat turn, its first message's.
  const parent = work.task ? taskTraceparent(work.task.taskId, work.task.traceId) : work.traceparent;
  const facts = { kind: 'agent', persona: context.session().personaName, sessionId: context.sessionId, layer: work.task ? 'task' : 'internal', turnId: work.turnId, taskId: work.task?.taskId, ...(parent && { parent }) } as const;
  return inSpan(facts, () => runTurn(context, work, signal, onDelta, stopKind));
}

async function runTurn(context: MindContext, work: TurnWork, signal: AbortSignal, onDelta: (delta: RoutedDelta) => void, stopKind: () => StopKind): Promise<TurnResult> {
  const config = context.session().models.c_model;
  const userMessage = work.userMessages.length > 0 ? work.userMessages.map((message) => message.content).join('\n\n') : null;
  const session = context.session();
  // Recall across the persona's other sessions and memories (a continued turn sends what it sent).
  const query = [work.task?.goal, userMessage].filter(Boolean).join('\n');
  const holdsUntrusted = await untrustedAtStart(context.sessionId, work);
  const recalled = work.resume || !query.trim() ? null : await memoryForTurn({ personaName: session.personaName, sessionId: context.sessionId, query, holdsUntrusted });
  // Recalled text from untrusted content makes this turn untrusted too (§20).
  if (recalled?.untrustedSource) await markSessionUntrusted(context.sessionId, recalled.untrustedSource);
  const readsWithheld = holdsUntrusted || Boolean(recalled?.untrustedSource);
  const prompt = {
    moodAndCriteria: work.taken.moodAndCriteria,
    userMessage,
    sLoud: work.taken.sLoud,
    task: work.task?.brief ?? null,
    memory: recalled?.text ?? null,
  };
  let router = new ReplyRouter();
  let loud = '';
  let quiet = '';
  // Each channel's first words after a tool step start a new paragraph.
  const stepStart = { loud: false, quiet: false };
  const route = (deltas: RoutedDelta[]) => {
    for (const routed of deltas) {
      let delta = routed;
      if (stepStart[delta.channel] && delta.text.trim()) {
        stepStart[delta.channel] = false;
        if ((delta.channel === 'loud' ? loud : quiet).trim()) delta = { ...delta, text: `\n\n${delta.text.trimStart()}` };
      }
      if (delta.channel === 'loud') loud += delta.text;
      else quiet += delta.text;
      onDelta(delta);
    }
  };
  // The calls of this turn that finished (and those a continued turn finished before the restart):
  // what it showed with show_file follows its words, read from here rather than the database.
  const finishedCalls = work.resume?.steps.flatMap((step) => step.calls) ?? [];
  const toolbox = await context.toolbox(work.task, (call) => {
    if (call.turnId === work.turnId) finishedCalls.push(call);
  });
  // What the person attached: shown to the model with their words (a refusal turns them off).
  const visuals = await visualsForTurn(context.sessionId, work.userMessages.map((message) => message.content), config);
  let shown = visuals.blocks;
  const fitted = (share: number) => {
    const { request } = fitInternalDialogPrompt(context, prompt, share, toolbox?.definitions(), shown, readsWithheld);
    // A continued turn sends the user turn it first sent.
    if (!work.resume) return request;
    return { ...request, messages: [withVisuals(work.resume.turn.prompt, shown)] };
  };
  // A model that refuses images (said by the provider) gets the call again without them, once.
  const refusedImages = (answer: ModelCallResult, request: BackendRequest) =>
    answer.error && !answer.text && !signal.aborted && hasImages(request) && isImageRefusal(answer.error.message);
  const withoutRefusedImages = async (request: BackendRequest, answer: ModelCallResult, again: (request: BackendRequest) => Promise<ModelCallResult>) => {
    if (!refusedImages(answer, request)) return answer;
    learnBlind(config);
    shown = shown.filter((block) => block.type !== 'image');
    visuals.notes.push(`${config.model} refused the images (${answer.error!.message.slice(0, 200)}): sent without them`);
    return again(withoutImages(request));
  };
  let result: ModelCallResult | null;
  let agent: AgentStepsResult | null = null;
  if (toolbox) {
    const first = fitted(1);
    const turn = work.resume?.turn ?? {
      turnId: work.turnId,
      spontaneous: work.spontaneous,
      cycleNumber: work.taken.cycle,
      answering: work.userMessages.map((message) => message.id),
      prompt: first.messages.map((message) => message.content).join('\n\n'),
      taskId: work.task?.taskId ?? null,
    };
    // The CLI runs its own tool loop and reaches the tools through the app's MCP endpoint: each
    // run gets a token bound to this turn. A CLI turn cut by a restart cannot be continued (its
    // process is gone): it starts again.
    const toolServer = config.backend === 'claude_code_cli' ? context.toolServer() : null;
    if (toolServer && work.resume) await toolbox.closeTurn(work.turnId);
    const resumeSteps = toolServer ? undefined : work.resume?.steps;
    let nextCliStep = (work.resume?.steps.at(-1)?.step ?? -1) + 1;
    const send = async (request: BackendRequest, onText: (text: string) => void) => {
      if (!toolServer || !request.tools?.length) return context.callModel({ layer: 'internal', config, request, signal, onText, traceId: work.task?.traceId });
      const binding = toolServer.bind({ sessionId: context.sessionId, toolbox, turn, signal, stopKind, firstStep: nextCliStep });
      try {
        const viaServer = { ...request, toolServer: { name: MCP_SERVER_NAME, url: toolServer.url, token: binding.token, permissionTool: PERMISSION_TOOL } };
        return await context.callModel({ layer: 'internal', config, request: viaServer, signal, onText, traceId: work.task?.traceId });
      } finally {
        nextCliStep = binding.nextStep();
        binding.release();
      }
    };
    const call = async (request: BackendRequest, onText: (text: string) => void) => {
      const answer = await withoutRefusedImages(request, await send(request, onText), (again) => send(again, onText));
      work.task?.afterCall(answer);
      // The backend counts differently than we do: the first step once more with half the history budget.
      const firstStep = request.messages.length === 1 && !work.resume;
      if (answer.error?.kind !== 'prompt_too_long' || answer.text || signal.aborted || !firstStep) return answer;
      return send({ ...fitted(0.5), tools: request.tools }, onText);
    };
    agent = await runAgentSteps({
      request: first,
      toolbox,
      turn,
      resumeSteps,
      signal,
      stopKind,
      callModel: call,
      beforeCall: work.task?.beforeCall,
      endAfterTools: work.task?.endAfterTools,
      onStepText: (text) => route(router.push(text)),
      onStepEnd: () => {
        route(router.end());
        router = new ReplyRouter();
        stepStart.loud = stepStart.quiet = true;
      },
    });
    result = agent.last;
    if (agent.limitReached) quiet += `${quiet ? '\n\n' : ''}[The turn stopped after ${MAX_TOOL_STEPS_PER_TURN} tool steps.]`;
  } else {
    const once = (request: BackendRequest) => context.callModel({ layer: 'internal', config, request, signal, onText: (text) => route(router.push(text)) });
    const call = async (share: number) => {
      const request = fitted(share);
      return withoutRefusedImages(request, await once(request), once);
    };
    result = await call(1);
    if (result.error?.kind === 'prompt_too_long' && !result.text && !signal.aborted) {
      // The backend counts differently than we do: half the history budget, once.
      result = await call(0.5);
    }
    // A finished reply flushes what the router held back (untagged output becomes ID_loud). A cut
    // or stopped one keeps exactly what was shown: the held-back rest is a fragment (a partial
    // tag such as "<ID_lo", or untagged text never shown) and is dropped.
    if (!result.error && !result.aborted) route(router.end());
  }

  if (agent?.leftOpen) {
    // A shutdown while the turn acted: its steps and calls are stored and it stays open; the
    // restart continues it (its user messages stay unanswered until then).
    return { outcome: 'stopped', loud: loud.trim(), quiet: quiet.trim(), messages: [] };
  }
  if (visuals.notes.length > 0) quiet += `${quiet.trim() ? '\n\n' : ''}[Not shown to the model: ${visuals.notes.join('; ')}.]`;
  const stopped = result?.aborted || agent?.stopped || !result;
  const outcome: TurnOutcome = result?.error ? 'failed' : stopped ? 'stopped' : 'complete';
  const answeredMessageIds = work.userMessages.map((message) => message.id);
  loud = withoutFileLines(loud.trim());
  quiet = quiet.trim();
  // What the agent showed with show_file follows its words.
  const byOrder = (a: ToolCallRecord, b: ToolCallRecord) => a.step - b.step || a.position - b.position;
  const shownFiles = agent ? shownFileLines([...new Map(finishedCalls.map((call) => [call.id, call])).values()].sort(byOrder)) : [];
  if (shownFiles.length > 0) loud = [loud, shownFiles.join('\n')].filter(Boolean).join('\n\n');
  let messages: MessageRecord[] = [];
  if (outcome === 'complete' || loud || quiet) {
    messages = await insertTurn({
      sessionId: context.sessionId,
      turnId: work.turnId,
      cycleNumber: work.taken.cycle,
      spontaneous: work.spontaneous,
      loud,
      quiet,
      interrupted: outcome !== 'complete',
      answeredMessageIds,
      untrustedSource: await sessionUntrustedSource(context.sessionId),
    });
    appendLogsSafely(() => {
      const line = (message: MessageRecord) => ({ ...logRecordOf(message), ...(work.task && { trace_id: work.task.traceId }) });
      appendLogRecords({ sessionId: context.sessionId, file: 'internal', records: messages.filter((m) => m.layer === 'internal').map(line) });
      appendLogRecords({ sessionId: context.sessionId, file: 'external', records: messages.filter((m) => m.layer === 'external').map(line) });
    }, context.sessionId);
    context.memory.recordTurn({ loud, quiet, cycle: work.taken.cycle, untrusted: messages[0]?.untrustedSource ?? null });
    if (visuals.shown.length > 0) await rememberCaptions({ personaName: session.personaName, sessionId: context.sessionId, quiet, shown: visuals.shown }).catch((error: unknown) => console.error(`[memory ${context.sessionId}] captions not kept`, error));
  } else {
    await markAnswered({ sessionId: context.sessionId, turnId: work.turnId, messageIds: answeredMessageIds });
  }
  if (agent && toolbox) await toolbox.closeTurn(work.turnId);
  return {
    outcome,
    loud,
    quiet,
    messages,
    ...(result?.error && { error: { message: result.error.message, kind: result.error.kind } }),
    ...(agent?.budgetStop && { budgetStop: agent.budgetStop }),
  };
}
