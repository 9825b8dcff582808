// What a mind keeps in memory between calls: each layer's recent output (bounded, with a local
// token estimate per entry, so prompts are fitted to budgets without re-counting) and the shared
// state the Subconscious writes and the Internal Dialog reads. Loaded once from the store on
// start, then kept current as outputs are persisted — no history reads per cycle.
//
// The shared state is one immutable object replaced whole after each cycle is persisted, so an
// Internal Dialog turn that takes it gets a consistent Mood & Criteria and S_loud, never a mix.
//
// Untrusted content lives in the turn that reads it (ARCHITECTURE §20, issue 44): what a turn wrote
// while its prompt held some — and a webhook's words, an imported history — is kept here as a
// one-line placeholder naming the source, so later turns, the Subconscious and the summaries never
// read it and are not marked by it. A turn that needs it again recalls or re-reads it, and asks.
import type { MindSnapshot, SummaryLayer, SummaryRecord } from '@/lib/store/mind-repository';
import type { MessageRecord } from '@/lib/store/messages-repository';
import type { MoodAndCriteria } from '@/lib/mind/tags/build-prompts';
import { estimateTokens, type HistoryWindow } from '@/lib/mind/token-budget';
import { withheldText } from '@/lib/config/trust-config';

/** One remembered output: its text, the cycle it belongs to, and its estimated tokens. */
export interface MemoryEntry {
  cycle: number | null;
  /** What prompts read: the text, or the placeholder of withheld untrusted content. */
  text: string;
  tokens: number;
  /** Untrusted content kept out of prompts (as it was written, and its source), until the owner vouches for it. */
  withheld?: { entry: MemoryEntry; source: string };
  /** A thought of a cycle that had nothing new to read: the next such thought replaces it (issue 74). */
  idle?: true;
}

const entry = (text: string, cycle: number | null, untrusted: string | null = null): MemoryEntry => {
  const written: MemoryEntry = { cycle, text, tokens: estimateTokens(text) };
  if (!untrusted) return written;
  const shown = withheldText(untrusted);
  return { cycle, text: shown, tokens: estimateTokens(shown), withheld: { entry: written, source: untrusted } };
};
const written = (item: MemoryEntry) => item.withheld?.entry ?? item;

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
  /** Counts news: anything from outside the Subconscious (a message, a reply, a tool's line, a task's note). Rest reads it (mind-rest.ts). */
  news = 0;
  private lastUser: MemoryEntry;
  private lastAgent: MemoryEntry;
  private idQuiet: MemoryEntry[];
  private idLoud: MemoryEntry[];
  private sQuiet: MemoryEntry[];
  private sLoud: MemoryEntry[];

  constructor(
    snapshot: MindSnapshot,
    private readonly limit: number,
  ) {
    const entries = (messages: MessageRecord[]) =>
      messages.filter((message) => message.content.trim() !== '').map((message) => entry(message.content, message.cycleNumber, message.untrustedSource ?? null));
    const shown = (message: MessageRecord | null) => (message ? entry(message.content, null, message.untrustedSource ?? null) : null);
    // The state of an imported cycle is someone else's words: the Subconscious writes its own first.
    const imported = Boolean(snapshot.latestSLoud?.untrustedSource);
    this.shared = {
      cycle: snapshot.lastCycle,
      moodAndCriteria: !imported && snapshot.moodAndCriteria ? { mood: snapshot.moodAndCriteria.mood, criteria: snapshot.moodAndCriteria.criteria } : null,
      sLoud: !imported && snapshot.latestSLoud ? { cycle: snapshot.latestSLoud.cycleNumber ?? 0, text: snapshot.latestSLoud.content } : null,
    };
    this.lastDeliveredCycle = snapshot.lastDeliveredCycle;
    this.summaries = { ...snapshot.summaries };
    this.lastUser = shown(snapshot.lastUserMessage) ?? entry('', null);
    this.lastAgent = shown(snapshot.lastAgentMessage) ?? entry('', null);
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
      fixed: { edUser: this.lastUser.text, edAgent: this.lastAgent.text, idQuiet: recent(this.idQuiet), idLoud: recent(this.idLoud), toolActivity: this.toolActivity.join('\n') },
      sQuiet: this.sQuiet as readonly MemoryEntry[],
      sLoud: this.sLoud as readonly MemoryEntry[],
    };
  }

  /**
   * The Internal Dialog's window. `holdsUntrusted`: the turn already holds untrusted content (a task
   * step that read a page, a turn answering a webhook) and asks before sending anything out, so it
   * reads what earlier turns wrote while reading, as written. Summaries always fold the placeholders.
   */
  idQuietHistory(holdsUntrusted = false): readonly MemoryEntry[] {
    return holdsUntrusted && this.idQuiet.some((item) => item.withheld) ? this.idQuiet.map(written) : this.idQuiet;
  }

  /** The summary as the history's first entry, or null. */
  summaryEntry(layer: SummaryLayer): MemoryEntry | null {
    const summary = this.summaries[layer];
    return summary ? entry(`Summary of cycles ${summary.fromCycle}–${summary.toCycle}: ${summary.summary}`, summary.toCycle, summary.untrustedSource ?? null) : null;
  }

  /** The owner vouched for the session's content (untrusted/clear): withheld entries are shown again. */
  vouch(): void {
    const restore = written;
    this.idQuiet = this.idQuiet.map(restore);
    this.idLoud = this.idLoud.map(restore);
    this.sQuiet = this.sQuiet.map(restore);
    this.sLoud = this.sLoud.map(restore);
    [this.lastUser, this.lastAgent] = [restore(this.lastUser), restore(this.lastAgent)];
    for (const layer of ['internal', 'subconscious'] as const) {
      const summary = this.summaries[layer];
      if (summary?.untrustedSource) this.summaries[layer] = { ...summary, untrustedSource: null };
    }
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
    this.news++;
    this.toolActivity.push(line);
    if (this.toolActivity.length > recentToolActivityForSubconscious) this.toolActivity.shift();
  }

  /** `untrusted`: another server's words (a webhook's payload): the turn answering them reads them, no one after. */
  recordUser(text: string, untrusted: string | null = null): void {
    this.news++;
    this.lastUser = entry(text, null, untrusted);
  }

  /**
   * `idle`: the cycle had nothing new to read. Consecutive idle thoughts do not pile into the window:
   * each replaces the one before (the store keeps them all), so idling never grows the prompt.
   */
  recordCycle(input: { cycle: number; sLoud: string; sQuiet: string; moodAndCriteria: MoodAndCriteria; idle?: boolean }): void {
    const add = (list: MemoryEntry[], text: string) => {
      if (!text.trim()) return;
      if (input.idle && list.at(-1)?.idle) list.pop();
      push(list, input.idle ? { ...entry(text, input.cycle), idle: true } : entry(text, input.cycle), this.limit);
    };
    add(this.sQuiet, input.sQuiet);
    add(this.sLoud, input.sLoud);
    this.shared = { cycle: input.cycle, moodAndCriteria: input.moodAndCriteria, sLoud: { cycle: input.cycle, text: input.sLoud } };
  }

  /** `untrusted`: what the turn's prompt held from outside; its words are withheld from later prompts. */
  recordTurn(input: { loud: string; quiet: string; cycle: number; untrusted?: string | null }): void {
    this.news++;
    const untrusted = input.untrusted ?? null;
    if (input.quiet.trim()) push(this.idQuiet, entry(input.quiet, input.cycle, untrusted), this.limit);
    if (input.loud.trim()) {
      push(this.idLoud, entry(input.loud, input.cycle, untrusted), this.limit);
      this.lastAgent = entry(input.loud, null, untrusted);
    }
  }
}

function push(entries: MemoryEntry[], item: MemoryEntry, limit: number): void {
  entries.push(item);
  if (entries.length > limit) entries.splice(0, entries.length - limit);
}
