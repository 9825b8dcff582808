// The session page's state: REST pages and live events merged into one truth. Messages are kept
// by id, so a page fetched after a reconnect and the events that arrived meanwhile never
// duplicate; `seq` tells when events were missed (a gap) and the page must re-read over REST.
import type { ElicitationJson } from '@/lib/mind/elicitation-json';
import type { ScheduleJson } from '@/lib/store/triggers-repository';
import type { EventOf, MindState, OrchestratorEvent } from '@/lib/mind/events';
import type { CallLayer, UsageTotals } from '@/lib/store/mind-repository';
import type { MessageJson, MoodAndCriteriaJson } from '@/lib/store/messages-repository';
import type { SessionJson } from '@/lib/http/session-json';
import type { ToolCallJson } from '@/lib/store/tool-calls-repository';
import type { TaskJson } from '@/lib/store/tasks-repository';
import type { ConsolidationJson } from '@/lib/mind/events';

/** Live output kept per running call in the page (the row holds it all once the call ends). */
const TOOL_OUTPUT_CAP_CHARS = 64 * 1024;

export type HistoryLayer = 'external' | 'internal' | 'subconscious';

export interface HistoryPage {
  messages: MessageJson[];
  mood_and_criteria: MoodAndCriteriaJson[];
  next_before: number | null;
}

export interface StreamingTurn {
  turnId: string;
  spontaneous: boolean;
  answering: number[];
  loud: string;
  quiet: string;
}

export interface LayerHistory {
  /** Sorted by id, no duplicates. */
  messages: MessageJson[];
  /** Cursor for the next older page; null when the start of the history is loaded. */
  nextBefore: number | null;
}

export interface SessionState {
  session: SessionJson | null;
  mind: MindState | null;
  usage: Record<CallLayer, UsageTotals> | null;
  history: Record<HistoryLayer, LayerHistory>;
  /** Mood & Criteria by cycle number. */
  moods: Record<number, MoodAndCriteriaJson>;
  /** Which turn answered each user message (from turn-start; stored rows get it too). */
  answeredBy: Record<number, string>;
  streaming: StreamingTurn | null;
  /** Tool calls by id (cards and the Internal panel's activity), from REST and events. */
  toolCalls: Record<string, ToolCallJson>;
  /** The session's tasks by id, as their events last said. */
  tasks: Record<string, TaskJson>;
  /** Schedules as their events told (the Schedules panel reads the rest over REST). */
  schedules: Record<string, ScheduleJson>;
  /** Live output of running calls, by call id. */
  toolOutput: Record<string, string>;
  /** MCP servers' questions to the user by id (cards in the chat); answered ones stay, shown as such. */
  elicitations: Record<string, ElicitationJson>;
  /** Memory consolidations by id (the Subconscious panel), from REST and events. */
  consolidations: Record<number, ConsolidationJson>;
  /** A daily allowance's 80% notice (issue 48), shown until the page is reloaded. */
  allowanceNotice: string | null;
  deleted: boolean;
  bootId: string | null;
  lastSeq: number;
  /** Set when an event arrived after a gap: the page must re-read over REST. */
  needsResync: boolean;
}

export type SessionAction =
  | { type: 'loaded'; session: SessionJson; mind: MindState | null; usage: Record<CallLayer, UsageTotals>; pages: Record<HistoryLayer, HistoryPage>; toolCalls?: ToolCallJson[]; tasks?: TaskJson[]; consolidations?: ConsolidationJson[]; elicitations?: ElicitationJson[] }
  | { type: 'older'; layer: HistoryLayer; page: HistoryPage }
  | { type: 'joined'; bootId: string; lastSeq: number }
  | { type: 'session'; session: SessionJson }
  | { type: 'event'; event: OrchestratorEvent };

const emptyHistory = (): LayerHistory => ({ messages: [], nextBefore: null });

export function initialSessionState(): SessionState {
  return {
    session: null,
    mind: null,
    usage: null,
    history: { external: emptyHistory(), internal: emptyHistory(), subconscious: emptyHistory() },
    moods: {},
    answeredBy: {},
    streaming: null,
    toolCalls: {},
    tasks: {},
    schedules: {},
    toolOutput: {},
    elicitations: {},
    consolidations: {},
    allowanceNotice: null,
    deleted: false,
    bootId: null,
    lastSeq: 0,
    needsResync: false,
  };
}

/** Merges messages by id, keeping ascending order. */
export function mergeMessages(current: MessageJson[], incoming: MessageJson[]): MessageJson[] {
  if (incoming.length === 0) return current;
  const byId = new Map(current.map((message) => [message.id, message]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

function withMessages(state: SessionState, messages: MessageJson[]): SessionState['history'] {
  const history = { ...state.history };
  for (const layer of ['external', 'internal', 'subconscious'] as const) {
    const incoming = messages.filter((message) => message.layer === layer);
    if (incoming.length) history[layer] = { ...history[layer], messages: mergeMessages(history[layer].messages, incoming) };
  }
  return history;
}

function withMoods(moods: SessionState['moods'], rows: MoodAndCriteriaJson[]): SessionState['moods'] {
  if (rows.length === 0) return moods;
  const next = { ...moods };
  for (const row of rows) next[row.cycle_number] = row;
  return next;
}

export function sessionReducer(state: SessionState, action: SessionAction): SessionState {
  switch (action.type) {
    case 'loaded': {
      const history = { ...state.history };
      let moods = state.moods;
      for (const layer of ['external', 'internal', 'subconscious'] as const) {
        const page = action.pages[layer];
        // A fresh read replaces what was loaded only where it overlaps: older pages stay.
        history[layer] = {
          messages: mergeMessages(state.history[layer].messages, page.messages),
          nextBefore: state.history[layer].messages.length ? state.history[layer].nextBefore : page.next_before,
        };
        moods = withMoods(moods, page.mood_and_criteria);
      }
      const turn = action.mind?.turn ?? null;
      const streaming = turn ? (state.streaming?.turnId === turn.turnId ? state.streaming : { turnId: turn.turnId, spontaneous: turn.spontaneous, answering: turn.answering, loud: '', quiet: '' }) : null;
      const answeredBy = { ...state.answeredBy };
      for (const id of turn?.answering ?? []) answeredBy[id] = turn!.turnId;
      const toolCalls = { ...state.toolCalls };
      for (const call of action.toolCalls ?? []) toolCalls[call.id] = call;
      const tasks = { ...state.tasks };
      for (const task of action.tasks ?? []) tasks[task.id] = task;
      const consolidations = { ...state.consolidations };
      for (const consolidation of action.consolidations ?? []) consolidations[consolidation.id] = consolidation;
      const elicitations = { ...state.elicitations };
      for (const elicitation of action.elicitations ?? []) elicitations[elicitation.id] = elicitation;
      return { ...state, session: action.session, mind: action.mind, usage: action.usage, history, moods, streaming, answeredBy, toolCalls, tasks, consolidations, elicitations, needsResync: false };
    }
    case 'older': {
      const layer = state.history[action.layer];
      return {
        ...state,
        history: { ...state.history, [action.layer]: { messages: mergeMessages(layer.messages, action.page.messages), nextBefore: action.page.next_before } },
        moods: withMoods(state.moods, action.page.mood_and_criteria),
      };
    }
    case 'joined': {
      const rebooted = state.bootId !== null && state.bootId !== action.bootId;
      return { ...state, bootId: action.bootId, lastSeq: rebooted || state.lastSeq === 0 ? action.lastSeq : state.lastSeq };
    }
    case 'session':
      return { ...state, session: action.session };
    case 'event':
      return applyEvent(state, action.event);
  }
}

function applyEvent(state: SessionState, event: OrchestratorEvent): SessionState {
  if (state.bootId !== null && event.bootId !== state.bootId) return { ...state, needsResync: true };
  if (event.seq <= state.lastSeq) return state; // already seen
  const gap = state.lastSeq > 0 && event.seq > state.lastSeq + 1;
  const next = reduceEvent({ ...state, lastSeq: event.seq }, event);
  return gap ? { ...next, needsResync: true } : next;
}

function reduceEvent(state: SessionState, event: OrchestratorEvent): SessionState {
  switch (event.type) {
    case 'session-status':
      return state.session ? { ...state, session: { ...state.session, status: event.status } } : state;
    case 'session-updated':
      return state.session ? { ...state, session: { ...state.session, name: event.name } } : state;
    case 'session-deleted':
      return { ...state, deleted: true };
    case 'mind-state':
      return { ...state, mind: event.state };
    case 'cycle-start':
      return state;
    case 'subconscious-output':
      return { ...state, history: withMessages(state, event.messages), moods: withMoods(state.moods, [event.moodAndCriteria]) };
    case 'mood-changed':
      return state;
    case 'message-persisted':
      return { ...state, history: withMessages(state, [event.message]) };
    case 'turn-start': {
      const answeredBy = { ...state.answeredBy };
      for (const id of event.answering) answeredBy[id] = event.turnId;
      return { ...state, answeredBy, streaming: { turnId: event.turnId, spontaneous: event.spontaneous, answering: event.answering, loud: '', quiet: '' } };
    }
    case 'reply-delta':
    case 'thought-delta':
      return appendDelta(state, event);
    case 'turn-end':
      return {
        ...state,
        history: withMessages(state, event.messages),
        streaming: state.streaming?.turnId === event.turnId ? null : state.streaming,
      };
    case 'error':
      return state; // the mind-state that follows carries it as lastError
    case 'usage':
      return state.usage ? { ...state, usage: { ...state.usage, [event.layer]: event.totals } } : state;
    case 'tool-call':
      return { ...state, toolCalls: { ...state.toolCalls, [event.call.id]: event.call } };
    case 'task.created':
    case 'task.started':
    case 'task.step':
    case 'task.blocked':
    case 'task.completed':
    case 'task.failed':
    case 'task.cancelled':
      return { ...state, tasks: { ...state.tasks, [event.task.id]: event.task } };
    case 'schedule.created':
    case 'schedule.fired':
    case 'schedule.skipped':
    case 'schedule.failed':
      return { ...state, schedules: { ...state.schedules, [event.schedule.id]: event.schedule } };
    case 'hook.received':
      return state;
    case 'allowance.notice':
      return { ...state, allowanceNotice: event.message };
    case 'elicitation':
      return { ...state, elicitations: { ...state.elicitations, [event.elicitation.id]: event.elicitation } };
    case 'memory-consolidation':
      return { ...state, consolidations: { ...state.consolidations, [event.consolidation.id]: event.consolidation } };
    case 'tool-output': {
      const soFar = (state.toolOutput[event.callId] ?? '') + event.text;
      return { ...state, toolOutput: { ...state.toolOutput, [event.callId]: soFar.length > TOOL_OUTPUT_CAP_CHARS ? soFar.slice(-TOOL_OUTPUT_CAP_CHARS) : soFar } };
    }
  }
}

function appendDelta(state: SessionState, event: EventOf<'reply-delta'> | EventOf<'thought-delta'>): SessionState {
  // A delta of a turn we did not see start (joined mid-turn) opens a preview of its own.
  const streaming = state.streaming?.turnId === event.turnId ? state.streaming : { turnId: event.turnId, spontaneous: false, answering: [], loud: '', quiet: '' };
  return {
    ...state,
    streaming: event.type === 'reply-delta' ? { ...streaming, loud: streaming.loud + event.text } : { ...streaming, quiet: streaming.quiet + event.text },
  };
}

// ── Views derived from the state ───────────────────────────────────────────────────────────

export interface TurnView {
  turnId: string;
  spontaneous: boolean;
  loud: MessageJson | null;
  quiet: MessageJson | null;
}

/** Internal Dialog turns, oldest first, from the stored ID_loud / ID_quiet rows. */
export function internalTurns(messages: MessageJson[]): TurnView[] {
  const turns = new Map<string, TurnView>();
  for (const message of messages) {
    const turnId = message.turn_id ?? `row-${message.id}`;
    const turn = turns.get(turnId) ?? { turnId, spontaneous: message.spontaneous, loud: null, quiet: null };
    if (message.tag === 'ID_loud') turn.loud = message;
    if (message.tag === 'ID_quiet') turn.quiet = message;
    turns.set(turnId, turn);
  }
  return [...turns.values()];
}

export interface CycleView {
  cycle: number;
  at: string;
  sLoud: string;
  sQuiet: string;
  trigger: boolean;
  mood: MoodAndCriteriaJson | null;
}

/** Subconscious cycles, oldest first, from the stored S_loud / S_quiet / trigger rows and the M&C. */
export function subconsciousCycles(messages: MessageJson[], moods: SessionState['moods']): CycleView[] {
  const cycles = new Map<number, CycleView>();
  for (const message of messages) {
    if (message.cycle_number === null) continue;
    const cycle = cycles.get(message.cycle_number) ?? {
      cycle: message.cycle_number,
      at: message.created_at,
      sLoud: '',
      sQuiet: '',
      trigger: false,
      mood: moods[message.cycle_number] ?? null,
    };
    if (message.tag === 'S_loud') cycle.sLoud = message.content;
    if (message.tag === 'S_quiet') cycle.sQuiet = message.content;
    if (message.tag === 'trigger') cycle.trigger = message.content === 'true';
    cycles.set(message.cycle_number, cycle);
  }
  return [...cycles.values()].sort((a, b) => a.cycle - b.cycle);
}

/** A user message still waiting for its turn (typed during a reply, or before a crash). */
export function isQueued(message: MessageJson, state: SessionState): boolean {
  return message.tag === 'ED_user' && message.turn_id === null && !state.answeredBy[message.id];
}

export function latestMood(state: SessionState): MoodAndCriteriaJson | null {
  const cycles = Object.keys(state.moods).map(Number);
  return cycles.length ? state.moods[Math.max(...cycles)]! : null;
}
