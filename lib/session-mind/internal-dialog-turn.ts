// One Internal Dialog turn (seed 000 §3.1–3.2): static prompt + Mood & Criteria, the user's
// words (none in a spontaneous turn), the undelivered S_loud and the ID_quiet window. The output
// is routed as it streams — ID_loud to the chat, ID_quiet to the Internal panel — and persisted
// as one transaction when it ends. A stopped or failed reply that said something is kept,
// marked interrupted; one that said nothing only marks its user messages as answered.
import { MAX_TOOL_STEPS_PER_TURN, runAgentSteps, type AgentStepsResult } from '@/lib/agent/agent-steps';
import { MCP_SERVER_NAME, PERMISSION_TOOL } from '@/lib/agent/agent-mcp-endpoint';
import type { StopKind } from '@/lib/agent/session-toolbox';
import type { BackendRequest } from '@/lib/backends/model-backend';
import type { TurnOutcome } from '@/lib/mind/events';
import type { ModelCallResult } from '@/lib/mind/model-call';
import type { TurnResult } from '@/lib/mind/outcomes';
import type { RoutedDelta } from '@/lib/mind/tags/reply-router';
import { memoryForTurn } from '@/lib/memory/turn-memory';
import { insertTurn, markAnswered } from '@/lib/store/mind-repository';
import type { MessageRecord } from '@/lib/store/messages-repository';
import { appendLogRecords, logRecordOf } from '@/lib/store/session-logs';
import type { ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { markSessionUntrusted, sessionUntrustedSource, startCleanTurn } from '@/lib/store/untrusted-repository';
import { inSpan, taskTraceparent, tracing } from '@/lib/telemetry/traces';
import { appendLogsSafely, type MindContext } from './mind-context';
import { TurnRequests, type InternalDialogPrompt } from './turn-requests';
import { TurnText } from './turn-text';
import { rememberCaptions, shownFileLines, visualsForTurn, withoutFileLines } from './turn-visuals';
import type { TurnWork } from './turn-work';
import { logFailure } from '@/lib/store/store-faults';

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

/** The turn as one `invoke_agent <persona>` span (a task's step is one too): its model and tool calls are its children. */
export function runInternalDialogTurn(
  context: MindContext,
  work: TurnWork,
  signal: AbortSignal,
  onDelta: (delta: RoutedDelta) => void,
  stopKind: () => StopKind = () => 'user',
): Promise<TurnResult> {
  // A task's step continues the task's own trace wherever and whenever it runs; a chat turn, its first message's.
  const parent = !tracing() ? undefined : work.task ? taskTraceparent(work.task.taskId, work.task.traceId) : work.traceparent;
  const facts = { kind: 'agent', persona: context.session().personaName, sessionId: context.sessionId, layer: work.task ? 'task' : 'internal', turnId: work.turnId, taskId: work.task?.taskId, ...(parent && { parent }) } as const;
  return inSpan(facts, () => runTurn(context, work, signal, onDelta, stopKind));
}

async function runTurn(context: MindContext, work: TurnWork, signal: AbortSignal, onDelta: (delta: RoutedDelta) => void, stopKind: () => StopKind): Promise<TurnResult> {
  const config = context.session().models.c_model;
  const { prompt, readsWithheld } = await promptOf(context, work);
  const text = new TurnText(onDelta);
  // The calls of this turn that finished (and those a continued turn finished before the restart):
  // what it showed with show_file follows its words, read from here rather than the database.
  const finishedCalls = work.resume?.steps.flatMap((step) => step.calls) ?? [];
  const toolbox = await context.toolbox(work.task, (call) => {
    if (call.turnId === work.turnId) finishedCalls.push(call);
  });
  // What the person attached: shown to the model with their words (a refusal turns them off).
  const visuals = await visualsForTurn(context.sessionId, work.userMessages.map((message) => message.content), config);
  const requests = new TurnRequests({ context, config, prompt, tools: toolbox?.definitions(), visuals, readsWithheld, resume: work.resume, signal });
  const { result, agent } = toolbox ? await withTools({ context, work, signal, stopKind, text, requests, toolbox }) : { result: await withoutTools(context, requests, text, signal), agent: null };
  if (agent?.limitReached) text.quiet += `${text.quiet ? '\n\n' : ''}[The turn stopped after ${MAX_TOOL_STEPS_PER_TURN} tool steps.]`;
  if (agent?.leftOpen) {
    // A shutdown while the turn acted: its steps and calls are stored and it stays open; the
    // restart continues it (its user messages stay unanswered until then).
    return { outcome: 'stopped', loud: text.loud.trim(), quiet: text.quiet.trim(), messages: [] };
  }
  if (visuals.notes.length > 0) text.quiet += `${text.quiet.trim() ? '\n\n' : ''}[Not shown to the model: ${visuals.notes.join('; ')}.]`;
  const stopped = result?.aborted || agent?.stopped || !result;
  const outcome: TurnOutcome = result?.error ? 'failed' : stopped ? 'stopped' : 'complete';
  // What the agent showed with show_file follows its words.
  const byOrder = (a: ToolCallRecord, b: ToolCallRecord) => a.step - b.step || a.position - b.position;
  const shownFiles = agent ? shownFileLines([...new Map(finishedCalls.map((call) => [call.id, call])).values()].sort(byOrder)) : [];
  const loud = [withoutFileLines(text.loud.trim()), shownFiles.join('\n')].filter(Boolean).join('\n\n');
  const messages = await keepTurn(context, work, { outcome, loud, quiet: text.quiet.trim(), shown: visuals.shown });
  if (agent && toolbox) await toolbox.closeTurn(work.turnId);
  return {
    outcome,
    loud,
    quiet: text.quiet.trim(),
    messages,
    ...(result?.error && { error: { message: result.error.message, kind: result.error.kind } }),
    ...(agent?.budgetStop && { budgetStop: agent.budgetStop }),
  };
}

/** The turn's prompt: the shared state it took, the user's words, the task's brief and what memory recalls for them. */
async function promptOf(context: MindContext, work: TurnWork): Promise<{ prompt: InternalDialogPrompt; readsWithheld: boolean }> {
  const userMessage = work.userMessages.length > 0 ? work.userMessages.map((message) => message.content).join('\n\n') : null;
  // Recall across the persona's other sessions and memories (a continued turn sends what it sent).
  const query = [work.task?.goal, userMessage].filter(Boolean).join('\n');
  const holdsUntrusted = await untrustedAtStart(context.sessionId, work);
  const recalled = work.resume || !query.trim() ? null : await memoryForTurn({ personaName: context.session().personaName, sessionId: context.sessionId, query, holdsUntrusted });
  // Recalled text from untrusted content makes this turn untrusted too (§20).
  if (recalled?.untrustedSource) await markSessionUntrusted(context.sessionId, recalled.untrustedSource);
  return {
    prompt: { moodAndCriteria: work.taken.moodAndCriteria, userMessage, sLoud: work.taken.sLoud, task: work.task?.brief ?? null, memory: recalled?.text ?? null },
    readsWithheld: holdsUntrusted || Boolean(recalled?.untrustedSource),
  };
}

/** A reply without tools: one call (again with half the history when the backend says the prompt is too long). */
async function withoutTools(context: MindContext, requests: TurnRequests, text: TurnText, signal: AbortSignal): Promise<ModelCallResult> {
  const config = context.session().models.c_model;
  const once = (request: BackendRequest) => context.callModel({ layer: 'internal', config, request, signal, onText: (words) => text.push(words) });
  const call = async (share: number) => {
    const request = requests.fitted(share);
    return requests.withoutRefusedImages(request, await once(request), once);
  };
  let result = await call(1);
  // The backend counts differently than we do: half the history budget, once.
  if (result.error?.kind === 'prompt_too_long' && !result.text && !signal.aborted) result = await call(0.5);
  // A finished reply flushes what the router held back (untagged output becomes ID_loud). A cut
  // or stopped one keeps exactly what was shown: the held-back rest is a fragment (a partial
  // tag such as "<ID_lo", or untagged text never shown) and is dropped.
  if (!result.error && !result.aborted) text.end();
  return result;
}

/** A reply that may act: the agent's steps over the toolbox (through the app's MCP endpoint for the CLI). */
async function withTools(input: {
  context: MindContext;
  work: TurnWork;
  signal: AbortSignal;
  stopKind: () => StopKind;
  text: TurnText;
  requests: TurnRequests;
  toolbox: NonNullable<Awaited<ReturnType<MindContext['toolbox']>>>;
}): Promise<{ result: ModelCallResult | null; agent: AgentStepsResult }> {
  const { context, work, signal, stopKind, text, requests, toolbox } = input;
  const config = context.session().models.c_model;
  const first = requests.fitted(1);
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
    const answer = await requests.withoutRefusedImages(request, await send(request, onText), (again) => send(again, onText));
    work.task?.afterCall(answer);
    // The backend counts differently than we do: the first step once more with half the history budget.
    const firstStep = request.messages.length === 1 && !work.resume;
    if (answer.error?.kind !== 'prompt_too_long' || answer.text || signal.aborted || !firstStep) return answer;
    return send({ ...requests.fitted(0.5), tools: request.tools }, onText);
  };
  const agent = await runAgentSteps({
    request: first,
    toolbox,
    turn,
    resumeSteps: toolServer ? undefined : work.resume?.steps,
    signal,
    stopKind,
    callModel: call,
    beforeCall: work.task?.beforeCall,
    endAfterTools: work.task?.endAfterTools,
    onStepText: (words) => text.push(words),
    onStepEnd: () => text.stepEnd(),
  });
  return { result: agent.last, agent };
}

/**
 * What the turn said, stored as one transaction (marked interrupted unless it completed), logged
 * and remembered; a turn that said nothing only marks its user messages answered.
 */
async function keepTurn(context: MindContext, work: TurnWork, said: { outcome: TurnOutcome; loud: string; quiet: string; shown: Awaited<ReturnType<typeof visualsForTurn>>['shown'] }): Promise<MessageRecord[]> {
  const { outcome, loud, quiet } = said;
  const answeredMessageIds = work.userMessages.map((message) => message.id);
  if (outcome !== 'complete' && !loud && !quiet) {
    await markAnswered({ sessionId: context.sessionId, turnId: work.turnId, messageIds: answeredMessageIds });
    return [];
  }
  const messages = await insertTurn({
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
  if (said.shown.length > 0) {
    await rememberCaptions({ personaName: context.session().personaName, sessionId: context.sessionId, quiet, shown: said.shown }).catch((error: unknown) => logFailure(`[memory ${context.sessionId}] captions not kept`, error));
  }
  return messages;
}
