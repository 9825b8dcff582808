// What a mind keeps in memory between calls: each layer's recent output (bounded, with a local
// token estimate per entry, so prompts are fitted to budgets without re-counting) and the shared
// state the Subconscious writes and the Internal Dialog reads. Loaded once from the store on
// start, then kept current as outputs are persisted — no history reads per cycle.
//
// The shared state is one immutable object replaced whole after each cycle is persisted, so an
// Internal Dialog turn that takes it gets a consistent Mood & Criteria and S_loud, never a mix.
import type { MindSnapshot, SummaryLayer, SummaryRecord } from '@/lib/store/mind-repository';
import type { MessageRecord } from '@/lib/store/messages-repository';
import type { MoodAndCriteria } from '@/lib/mind/tags/build-prompts';
import { estimateTokens, type HistoryWindow } from '@/lib/mind/token-budget';

/** One remembered output: its text, the cycle it belongs to, and its estimated tokens. */
export interface MemoryEntry {
  cycle: number | null;
  text: string;
  tokens: number;
}

const entry = (text: string, cycle: number | null): MemoryEntry => ({ cycle, text, tokens: estimateTokens(text) });

export interface SharedState {
  /** The latest persisted cycle. */
  cycle: number;
  moodAndCriteria: MoodAndCriteria | null;
  sLoud: { cycle: number; text: string } | null;
}

/** How many recent Internal Dialog turns the Subconscious reads in <ID_quiet> and <ID_loud>. */
export const recentTurnsForSubconscious = 3;
/** Lines of tool activity (one per finished call) the Subconscious sees. */
export const recentToolActivityForSubconscious = 8;

export class MindMemory {
  shared: SharedState;
  /** The summary in effect per layer: the first entry of that layer's history. */
  readonly summaries: Record<SummaryLayer, SummaryRecord | null>;
  lastDeliveredCycle: number;
  /** Where the Subconscious's history windows start (see fitPairSteadily). */
  subconsciousWindow: HistoryWindow = { firstFrom: 0, secondFrom: 0 };
  private lastUser: string;
  private lastAgent: string;
  private readonly idQuiet: MemoryEntry[];
  private readonly idLoud: MemoryEntry[];
  private readonly sQuiet: MemoryEntry[];
  private readonly sLoud: MemoryEntry[];

  constructor(
    snapshot: MindSnapshot,
    private readonly limit: number,
  ) {
    const entries = (messages: MessageRecord[]) => messages.filter((message) => message.content.trim() !== '').map((message) => entry(message.content, message.cycleNumber));
    this.shared = {
      cycle: snapshot.lastCycle,
      moodAndCriteria: snapshot.moodAndCriteria && { mood: snapshot.moodAndCriteria.mood, criteria: snapshot.moodAndCriteria.criteria },
      sLoud: snapshot.latestSLoud && { cycle: snapshot.latestSLoud.cycleNumber ?? 0, text: snapshot.latestSLoud.content },
    };
    this.lastDeliveredCycle = snapshot.lastDeliveredCycle;
    this.summaries = { ...snapshot.summaries };
    this.lastUser = snapshot.lastUserMessage?.content ?? '';
    this.lastAgent = snapshot.lastAgentMessage?.content ?? '';
    this.idQuiet = entries(snapshot.idQuiet);
    this.idLoud = entries(snapshot.idLoud);
    this.sQuiet = entries(snapshot.sQuiet);
    this.sLoud = entries(snapshot.sLoud);
  }

  /** A window keeps fewer entries than memory holds, so trimming memory never moves its start. */
  get windowEntryLimit(): number {
    return Math.floor(this.limit * 0.9);
  }

  /** The Subconscious's inputs: the latest exchange (fixed) and its own histories (to be fitted). */
  subconsciousInputs() {
    const recent = (entries: MemoryEntry[]) => entries.slice(-recentTurnsForSubconscious).map((item) => item.text).join('\n---\n');
    return {
      fixed: { edUser: this.lastUser, edAgent: this.lastAgent, idQuiet: recent(this.idQuiet), idLoud: recent(this.idLoud), toolActivity: this.toolActivity.join('\n') },
      sQuiet: this.sQuiet as readonly MemoryEntry[],
      sLoud: this.sLoud as readonly MemoryEntry[],
    };
  }

  idQuietHistory(): readonly MemoryEntry[] {
    return this.idQuiet;
  }

  /** The summary as the history's first entry, or null. */
  summaryEntry(layer: SummaryLayer): MemoryEntry | null {
    const summary = this.summaries[layer];
    return summary ? entry(`Summary of cycles ${summary.fromCycle}–${summary.toCycle}: ${summary.summary}`, summary.toCycle) : null;
  }

  /** A new summary replaces the old one and the entries it covers leave the windows. */
  fold(summary: SummaryRecord): void {
    this.summaries[summary.layer] = summary;
    const covered = (item: MemoryEntry) => item.cycle !== null && item.cycle <= summary.toCycle;
    const lists = summary.layer === 'subconscious' ? [this.sQuiet, this.sLoud] : [this.idQuiet];
    for (const list of lists) {
      let count = 0;
      while (count < list.length && covered(list[count]!)) count++;
      list.splice(0, count);
    }
  }

  /** Takes the shared state for a turn; its S_loud is handed over once (the latest not yet delivered). */
  takeForTurn(): { moodAndCriteria: MoodAndCriteria | null; sLoud: string | null; cycle: number } {
    const shared = this.shared;
    const fresh = shared.sLoud && shared.sLoud.cycle > this.lastDeliveredCycle && shared.sLoud.text.trim() ? shared.sLoud.text : null;
    this.lastDeliveredCycle = Math.max(this.lastDeliveredCycle, shared.cycle);
    return { moodAndCriteria: shared.moodAndCriteria, sLoud: fresh, cycle: shared.cycle };
  }

  /** The newest tool activity (one line per finished call), for the Subconscious's next cycle. */
  private readonly toolActivity: string[] = [];

  recordToolActivity(line: string): void {
    this.toolActivity.push(line);
    if (this.toolActivity.length > recentToolActivityForSubconscious) this.toolActivity.shift();
  }

  recordUser(text: string): void {
    this.lastUser = text;
  }

  recordCycle(input: { cycle: number; sLoud: string; sQuiet: string; moodAndCriteria: MoodAndCriteria }): void {
    if (input.sQuiet.trim()) push(this.sQuiet, entry(input.sQuiet, input.cycle), this.limit);
    if (input.sLoud.trim()) push(this.sLoud, entry(input.sLoud, input.cycle), this.limit);
    this.shared = { cycle: input.cycle, moodAndCriteria: input.moodAndCriteria, sLoud: { cycle: input.cycle, text: input.sLoud } };
  }

  recordTurn(input: { loud: string; quiet: string; cycle: number }): void {
    if (input.quiet.trim()) push(this.idQuiet, entry(input.quiet, input.cycle), this.limit);
    if (input.loud.trim()) {
      push(this.idLoud, entry(input.loud, input.cycle), this.limit);
      this.lastAgent = input.loud;
    }
  }
}

function push(entries: MemoryEntry[], item: MemoryEntry, limit: number): void {
  entries.push(item);
  if (entries.length > limit) entries.splice(0, entries.length - limit);
}
