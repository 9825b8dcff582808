// A running mind's rest (issue 74): what it chose, how many cycles in a row found nothing new, and
// the wait between cycles that follows from them (lib/mind/rest.ts has the rules). The wait ends
// when its time runs out or when something wakes the gate — a message on any entry, a turn starting
// or ending (a task's step, a card decided), a tool's result, a task's note, new settings, Resume —
// and is recomputed then, so news cuts any rest at once. While the mind rests with the user away,
// it dreams once per stretch of news — at night, or sooner after enough of it (rest.ts's dreamAt):
// the memory's consolidation of what was said (lib/memory), no Subconscious call.
import { cycleDelayMs, foragingWindowMs, type Activity } from '@/lib/mind/pacing';
import { clockText, defaultDreamAfter, defaultDreamHour, dreamAt, isDormant, parseRest, planRest, quietUntil, restLimits, type ChosenRest, type RestPlan } from '@/lib/mind/rest';
import type { SessionParams } from '@/lib/config/model-config';
import type { Clock } from '@/lib/clock/clock';
import type { MindRestState, SpontaneousOutcome } from '@/lib/mind/events';
import type { WakeGate } from './wake-gate';

export interface RestLoopInput {
  status(): 'idle' | 'running' | 'paused' | 'stopping' | 'stopped';
  /** The session had cycles before this start. */
  cycledBefore: boolean;
  lastActivityAt: number;
  runCycle(): Promise<void>;
  /** After each cycle of the continuous loop: the memory's idle work (consolidation when resting). */
  afterCycle(): Promise<void>;
  /** A wait ended: a cycle request it honoured is cleared. */
  waited(): void;
  params(): SessionParams;
  activity(): Activity;
  /** The count of news (MindMemory.news): anything from outside the Subconscious. */
  news(): number;
  lastUserAt(): number;
  backoffUntil(): number;
  /** A message asked for a cycle now. */
  cycleRequested(): boolean;
  setNextCycleAt(at: number | null): void;
  /** The memory's work while the user is away: one consolidation (it calls a model only for new conversation). */
  dream(): Promise<void>;
}

export class MindRest {
  private chosen: ChosenRest | null = null;
  /** A chosen rest that ran out by itself: the next cycle is told its reason. */
  private ranOut: ChosenRest | null = null;
  private quietCycles = 0;
  /** The news count the last persisted cycle began with (-1: none yet, so the first cycle is news). */
  private newsSeen = -1;
  private newsAtCycleStart = 0;
  private dreamtAtNews = -1;
  private plan: RestPlan | null = null;
  /** When the news count last moved (dormancy counts from it). */
  private lastNewsAt: number;
  private lastNewsCount = 0;

  constructor(
    private readonly clock: Clock,
    private readonly gate: WakeGate,
  ) {
    this.lastNewsAt = clock.now();
  }

  /** A mind that starts again on a session it had cycled in: it rests until something happens (a restart is not news). */
  private restingAtStart(idleThoughts: number, lastActivityAt: number): void {
    this.newsSeen = 0;
    this.quietCycles = idleThoughts;
    this.lastNewsAt = Math.min(this.lastNewsAt, lastActivityAt);
  }

  /** What the page shows: null while awake. */
  state(): MindRestState | null {
    const plan = this.plan;
    if (!plan || plan.kind === 'awake') return null;
    const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
    if (plan.kind === 'chosen') return { kind: plan.rest.quiet ? 'quiet' : 'chosen', until: iso(plan.at), reason: plan.rest.reason };
    if (plan.kind === 'deepening') return { kind: 'deepening', until: iso(plan.at), reason: null };
    return { kind: plan.kind, until: null, reason: null };
  }

  /** A cycle begins: the news it reads; whether it has none (`idle`); the reason of a rest that ran out (for its prompt). */
  beginCycle(news: number, params: Pick<SessionParams, 'pacing' | 'time_zone'>): { restEnded: string | null; idle: boolean } {
    const { pacing } = params;
    this.newsAtCycleStart = news;
    const ended = this.ranOut;
    const hhmm = (at: number) => clockText(at, params.time_zone);
    const now = hhmm(this.clock.now());
    if (ended?.quiet) return { idle: false, restEnded: `The quiet hours are over (${hhmm(ended.until ?? this.clock.now())}); during them you wanted to say: ${ended.reason}. It is now ${now}.` };
    const restEnded = ended ? `Your rest${ended.until === null ? '' : ` until ${hhmm(ended.until)}`} is over; you chose it${ended.reason ? ` because: ${ended.reason}` : ''}. It is now ${now}.` : null;
    // The seed's literal loop keeps every thought in its window.
    return { idle: pacing === 'adaptive' && news === this.newsSeen, restEnded };
  }

  /** A cycle was persisted: it read the news it began with; `restWords`: its <rest>, if any. */
  cyclePersisted(restWords: string, timeZone?: string): void {
    const fresh = this.newsAtCycleStart !== this.newsSeen;
    this.quietCycles = fresh ? 1 : this.quietCycles + 1;
    this.newsSeen = this.newsAtCycleStart;
    this.ranOut = null;
    this.chosen = restWords.trim() ? parseRest(restWords, this.clock.now(), timeZone) : null;
  }

  /** The Subconscious loop: cycles and the rests between them until the mind stops; parked at the resume gate while paused. */
  async run(input: RestLoopInput): Promise<void> {
    // A restart is not news: a mind that had cycled rests until something happens.
    if (input.cycledBefore && input.params().pacing === 'adaptive') {
      this.restingAtStart(restLimits(input.params()).idleThoughts, input.lastActivityAt);
      await this.wait(input);
    }
    while (input.status() === 'running' || input.status() === 'paused') {
      if (input.status() === 'paused') {
        await this.gate.sleep(Number.POSITIVE_INFINITY); // the resume gate: resume() or stop() wakes it
        continue;
      }
      await input.runCycle();
      // The seed's literal loop never rests: its memory's work follows each cycle (when the user is away).
      if (input.status() === 'running' && input.params().pacing === 'continuous') await input.afterCycle();
      await this.wait(input);
    }
  }

  /**
   * A cycle that would make the agent speak during the session's quiet hours: its words wait — the
   * mind rests until the hours end and is asked again then, with what it wanted to say.
   */
  unlessQuiet(verdict: SpontaneousOutcome, sLoud: string, params: SessionParams): SpontaneousOutcome {
    const until = verdict === 'started' ? quietUntil(this.clock.now(), params.quiet_hours, params.time_zone) : null;
    if (until === null) return verdict;
    this.chosen = { until, reason: sLoud.trim() || 'you wanted to speak', quiet: true };
    return 'quiet';
  }

  /** Waits for the next cycle (measured from the end of the last), recomputed on every wake. */
  private async wait(input: RestLoopInput): Promise<void> {
    const cycleEndedAt = this.clock.now();
    let timedOut = false;
    while (input.status() === 'running') {
      const now = this.clock.now();
      const params = input.params();
      if (input.news() !== this.lastNewsCount) [this.lastNewsCount, this.lastNewsAt] = [input.news(), now];
      const news = input.news() !== this.newsSeen;
      if (news) this.chosen = null; // something happened: a rest it chose is over
      this.plan = planRest({
        pacing: params.pacing,
        activityDelayMs: cycleDelayMs(params.pacing, input.activity()),
        lastCycleEndedAt: cycleEndedAt,
        quietCycles: this.quietCycles,
        news,
        chosen: this.chosen,
        limits: restLimits(params),
        sinceNewsMs: now - this.lastNewsAt,
      });
      let until = Math.max(this.plan.at ?? Number.POSITIVE_INFINITY, input.backoffUntil());
      if (input.cycleRequested()) until = input.backoffUntil();
      // With the user away: dream once per stretch of news — at night, or sooner with enough of it —
      // whether the next thought is hours away or minutes (a slow cycle may end after the user left).
      const dreamsAt =
        this.plan.kind !== 'dormant' && params.pacing === 'adaptive'
          ? dreamAt({ newsSeen: this.newsSeen, dreamtAtNews: this.dreamtAtNews, lastUserAt: input.lastUserAt(), awayMs: foragingWindowMs, hour: params.dream_hour ?? defaultDreamHour, dreamAfter: params.dream_after ?? defaultDreamAfter, ...(params.time_zone && { timeZone: params.time_zone }) })
          : null;
      if (dreamsAt !== null && dreamsAt <= now && until > now) {
        this.dreamtAtNews = this.newsSeen;
        await input.dream();
        continue;
      }
      if (until <= now) {
        timedOut = true;
        break;
      }
      const wakeAt = dreamsAt !== null ? Math.min(until, dreamsAt) : until;
      input.setNextCycleAt(Number.isFinite(until) ? until : null);
      const woken = await this.gate.sleep(wakeAt - now);
      // Its time ran out: the cycle is due (even if the activity changed meanwhile) — unless the mind went dormant meanwhile.
      const dormant = input.news() === this.lastNewsCount && isDormant(this.clock.now() - this.lastNewsAt, restLimits(input.params()));
      if (!woken && wakeAt === until && !(dormant && params.pacing === 'adaptive')) {
        timedOut = true;
        break;
      }
    }
    // A rest it chose that ran out by itself (not news, not a pause): the next cycle is told why it rested.
    if (timedOut && this.plan?.kind === 'chosen' && input.news() === this.newsSeen) this.ranOut = this.chosen;
    this.chosen = null;
    this.plan = null;
    input.setNextCycleAt(null);
    input.waited();
  }
}
