// What a mind keeps in memory between calls: bounded windows of each layer's recent output and
// the shared state the Subconscious writes and the Internal Dialog reads. Loaded once from the
// store on start, then kept current as outputs are persisted — no history reads per cycle.
//
// The shared state is one immutable object replaced whole after each cycle is persisted, so an
// Internal Dialog turn that takes it gets a consistent Mood & Criteria and S_loud, never a mix.
import type { MindSnapshot } from '@/lib/store/mind-repository';
import type { MessageRecord } from '@/lib/store/messages-repository';
import type { MoodAndCriteria } from './tags/build-prompts';

export interface SharedState {
  /** The latest persisted cycle. */
  cycle: number;
  moodAndCriteria: MoodAndCriteria | null;
  sLoud: { cycle: number; text: string } | null;
}

/** How many recent Internal Dialog turns the Subconscious reads in <ID_quiet> and <ID_loud>. */
export const recentTurnsForSubconscious = 3;

export class MindMemory {
  shared: SharedState;
  lastDeliveredCycle: number;
  private lastUser: string;
  private lastAgent: string;
  private readonly idQuiet: string[];
  private readonly idLoud: string[];
  private readonly sQuiet: string[];
  private readonly sLoud: string[];

  constructor(
    snapshot: MindSnapshot,
    private readonly windowSize: number,
  ) {
    const contents = (messages: MessageRecord[]) => messages.map((message) => message.content);
    this.shared = {
      cycle: snapshot.lastCycle,
      moodAndCriteria: snapshot.moodAndCriteria && { mood: snapshot.moodAndCriteria.mood, criteria: snapshot.moodAndCriteria.criteria },
      sLoud: snapshot.latestSLoud && { cycle: snapshot.latestSLoud.cycleNumber ?? 0, text: snapshot.latestSLoud.content },
    };
    this.lastDeliveredCycle = snapshot.lastDeliveredCycle;
    this.lastUser = snapshot.lastUserMessage?.content ?? '';
    this.lastAgent = snapshot.lastAgentMessage?.content ?? '';
    this.idQuiet = contents(snapshot.idQuiet).filter((text) => text.trim() !== '');
    this.idLoud = contents(snapshot.idLoud).filter((text) => text.trim() !== '');
    this.sQuiet = contents(snapshot.sQuiet).filter((text) => text.trim() !== '');
    this.sLoud = contents(snapshot.sLoud);
  }

  subconsciousInputs() {
    return {
      edUser: this.lastUser,
      edAgent: this.lastAgent,
      idQuiet: this.idQuiet.slice(-recentTurnsForSubconscious).join('\n---\n'),
      idLoud: this.idLoud.slice(-recentTurnsForSubconscious).join('\n---\n'),
      sQuietHistory: [...this.sQuiet],
      sLoudHistory: [...this.sLoud],
    };
  }

  idQuietHistory(): string[] {
    return [...this.idQuiet];
  }

  /** Takes the shared state for a turn; its S_loud is handed over once (the latest not yet delivered). */
  takeForTurn(): { moodAndCriteria: MoodAndCriteria | null; sLoud: string | null; cycle: number } {
    const shared = this.shared;
    const fresh = shared.sLoud && shared.sLoud.cycle > this.lastDeliveredCycle && shared.sLoud.text.trim() ? shared.sLoud.text : null;
    this.lastDeliveredCycle = Math.max(this.lastDeliveredCycle, shared.cycle);
    return { moodAndCriteria: shared.moodAndCriteria, sLoud: fresh, cycle: shared.cycle };
  }

  recordUser(text: string): void {
    this.lastUser = text;
  }

  recordCycle(input: { cycle: number; sLoud: string; sQuiet: string; moodAndCriteria: MoodAndCriteria }): void {
    if (input.sQuiet.trim()) push(this.sQuiet, input.sQuiet, this.windowSize);
    if (input.sLoud.trim()) push(this.sLoud, input.sLoud, this.windowSize);
    this.shared = { cycle: input.cycle, moodAndCriteria: input.moodAndCriteria, sLoud: { cycle: input.cycle, text: input.sLoud } };
  }

  recordTurn(input: { loud: string; quiet: string }): void {
    if (input.quiet.trim()) push(this.idQuiet, input.quiet, this.windowSize);
    if (input.loud.trim()) {
      push(this.idLoud, input.loud, this.windowSize);
      this.lastAgent = input.loud;
    }
  }
}

function push(window: string[], text: string, size: number): void {
  window.push(text);
  if (window.length > size) window.splice(0, window.length - size);
}
