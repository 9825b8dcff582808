// The schedules of the whole app, on one timer (issue 29): it sleeps until the earliest slot of any
// active schedule (at most a minute, so a schedule made by another process is seen), then fires what
// is due. Each slot is claimed by compare-and-set on the row before anything runs (claimSlot): any
// number of processes — or a process retrying after a crash — fire a slot once. The claim writes
// "firing <slot>" first; a start-up finds a fire a crash cut and completes it, and each action is
// idempotent per slot (a task's id is derived from the slot, a message is looked for before it is
// sent), so a slot cut by kill -9 still leaves exactly one run.
import { deliverForSession, spend } from '@/lib/people/rights';
import type { Clock } from '@/lib/clock/clock';
import type { EventBus } from '@/lib/mind/events';
import { SessionPausedError } from '@/lib/mind/session-errors';
import { hasUserMessage } from '@/lib/store/messages-repository';
import { listTasks, type TaskRecord } from '@/lib/store/tasks-repository';
import { claimSlot, dueSchedules, findSchedule, listSchedules, nextDueAt, scheduleJson, updateSchedule, type ScheduleRecord } from '@/lib/store/triggers-repository';
import { submitTaskSchema, type SubmitTaskInput } from '@/lib/store/task-types';
import { nextFireAfter } from './schedule-times';
import { whenSchedulesChange } from './schedule-service';
import { sha256Hex } from '@/lib/security/digest';
import { errorText } from '@/lib/errors/error-text';

/** A slot later than this when its turn comes counts as missed (catch-up policy applies). */
export const MISSED_AFTER_MS = 60_000;
/** The longest the timer sleeps: schedules made in another process are seen within it. */
const MAX_SLEEP_MS = 60_000;
/** The longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
export const FAILURES_TO_PAUSE = 3;

export interface TriggerHost {
  bus: EventBus;
  clock: Clock;
  /** `untrustedSource`: the text holds another server's words (a webhook's payload). */
  sendMessage(sessionId: string, text: string, untrustedSource?: string): Promise<unknown>;
  startTask(sessionId: string, input: SubmitTaskInput, ids: { id: string; traceId: string }): Promise<TaskRecord>;
}

/** A UUID (version 5 layout) derived from text: the same slot always names the same task. */
export function derivedUuid(text: string): string {
  const hex = sha256Hex(text).slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const joined = hex.join('');
  return `${joined.slice(0, 8)}-${joined.slice(8, 12)}-${joined.slice(12, 16)}-${joined.slice(16, 20)}-${joined.slice(20)}`;
}

function localSlot(slot: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(slot);
}

/** The user message a message schedule sends, marked as scheduled (the same text for the same slot). */
export function scheduledText(schedule: Pick<ScheduleRecord, 'name' | 'timeZone'>, slot: Date, text: string): string {
  return `⏰ Scheduled "${schedule.name}" (${localSlot(slot, schedule.timeZone)}): ${text}`;
}

export class Scheduler {
  private stopped = true;
  private wake = new AbortController();
  private poked = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(private readonly host: TriggerHost) {}

  private unsubscribe: (() => void) | null = null;
  /** Rounds the timer has run (each: fire what is due, look for the next slot): what waiting costs. */
  rounds = 0;

  async start(): Promise<void> {
    this.stopped = false;
    this.unsubscribe = whenSchedulesChange(({ created }) => {
      if (created) this.host.bus.emit('schedule.created', created.sessionId, { schedule: scheduleJson(created), traceId: created.id });
      this.poke();
    });
    await this.recover();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.stopped = true;
    this.wake.abort();
    await this.loop;
  }

  /** A schedule was made or changed here: the timer looks again. */
  poke(): void {
    this.poked = true;
    this.wake.abort();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.poked = false;
      this.rounds++;
      try {
        await this.fireDue();
      } catch (error) {
        console.error('[schedules] a round failed', error);
      }
      if (this.stopped) return;
      const next = await nextDueAt().catch(() => null);
      // A stop() during that read aborted the previous controller: without this, the loop would
      // wait on a fresh one until the rescan (minutes), and stop() with it.
      if (this.stopped) return;
      this.wake = new AbortController();
      if (this.poked) continue; // changed while this round ran: look again at once
      const signal = this.wake.signal;
      // The slot's time on the app's clock (simulated in tests); the rescan on a real timer, so a
      // simulated clock sees a sleeper only while something is scheduled.
      const rescan = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, MAX_SLEEP_MS);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      // Capped: a slot months away must not overflow a timer (Node fires those at once: a busy loop).
      const due = next ? this.host.clock.sleep(Math.min(MAX_TIMER_MS, Math.max(0, next.getTime() - this.host.clock.now())), signal) : rescan;
      await Promise.race([due, rescan]);
      this.wake.abort(); // ends whichever wait is left
    }
  }

  /** Fires every slot due now (one per schedule: missed slots collapse into one). */
  async fireDue(): Promise<void> {
    for (const schedule of await dueSchedules(new Date(this.host.clock.now()))) {
      if (this.stopped) return;
      await this.fire(schedule);
    }
  }

  private async fire(schedule: ScheduleRecord): Promise<void> {
    const now = new Date(this.host.clock.now());
    const slot = schedule.nextFireAt!;
    const next = schedule.kind === 'once' ? null : nextFireAfter(schedule, now);
    const missed = now.getTime() - slot.getTime() > MISSED_AFTER_MS;
    if (missed && schedule.catchUp === 'skip') {
      const note = `skipped ${slot.toISOString()}: missed while the app was not running`;
      if (await claimSlot({ id: schedule.id, slot, next, firedAt: now, note })) this.announce('schedule.skipped', schedule.id, derivedUuid(`trace:${schedule.id}:${slot.toISOString()}`), note);
      return;
    }
    if (!(await claimSlot({ id: schedule.id, slot, next, firedAt: now, note: `firing ${slot.toISOString()}` }))) return; // another process has it
    await this.perform(schedule, slot, { counted: false });
  }

  /** A fire a crash cut between its claim and its end: completed now (each action is idempotent per slot). */
  private async recover(): Promise<void> {
    for (const schedule of await listSchedules({ states: ['active', 'done'] })) {
      const cut = /^firing (\S+)$/.exec(schedule.lastResult ?? '');
      if (cut) await this.perform(schedule, new Date(cut[1]!), { counted: true }); // its fire counted before the crash
    }
  }

  private async perform(schedule: ScheduleRecord, slot: Date, fire: { counted: boolean }): Promise<void> {
    const traceId = derivedUuid(`trace:${schedule.id}:${slot.toISOString()}`);
    const action = schedule.action;
    // The day's allowance spent (issue 48): the slot is skipped with the reason, nothing is sent.
    const answer = await spend(schedule.sessionId, new Date(this.host.clock.now()));
    if (answer.verdict === 'refuse') {
      const spent = answer.allowance;
      const note = `skipped ${slot.toISOString()}: today's allowance (${spent.scope === 'app' ? 'the app' : `${spent.scope} ${spent.scopeId}`}) is spent; it renews at midnight ${spent.timeZone}`;
      await updateSchedule(schedule.id, { lastResult: note });
      return this.announce('schedule.skipped', schedule.id, traceId, note);
    }
    // A fire is a message of the day for each of the session's people: past a person's limit, skipped.
    const people = fire.counted ? { verdict: 'allow' as const } : await deliverForSession(schedule.sessionId, new Date(this.host.clock.now()));
    if (people.verdict === 'refuse') {
      const note = `skipped ${slot.toISOString()}: ${people.reason}`;
      await updateSchedule(schedule.id, { lastResult: note });
      return this.announce('schedule.skipped', schedule.id, traceId, note);
    }
    try {
      let result: string;
      if (action.kind === 'message') {
        const text = scheduledText(schedule, slot, action.text);
        const delivered = await hasUserMessage({ sessionId: schedule.sessionId, content: text, since: new Date(slot.getTime() - MISSED_AFTER_MS) });
        if (!delivered) await this.host.sendMessage(schedule.sessionId, text);
        result = 'message sent';
      } else {
        const marker = `[schedule ${schedule.id}]`;
        const open = (await listTasks({ sessionId: schedule.sessionId, statuses: ['pending', 'running', 'blocked'] })).find((task) => task.context?.includes(marker));
        const id = derivedUuid(`task:${schedule.id}:${slot.toISOString()}`);
        if (open && open.id !== id) {
          const note = `skipped ${slot.toISOString()}: its previous task ${open.id} is still ${open.status}`;
          await updateSchedule(schedule.id, { lastResult: note });
          return this.announce('schedule.skipped', schedule.id, traceId, note);
        }
        const input = submitTaskSchema.parse({ goal: action.goal, context: `${marker} Started by the schedule "${schedule.name}" for ${localSlot(slot, schedule.timeZone)}.`, ...(action.constraints && { constraints: action.constraints }) });
        const task = await this.host.startTask(schedule.sessionId, input, { id, traceId });
        result = `task ${task.id} started`;
      }
      await updateSchedule(schedule.id, { lastResult: result, failures: 0 });
      this.announce('schedule.fired', schedule.id, traceId, result);
    } catch (error) {
      const reason = errorText(error);
      if (error instanceof SessionPausedError) {
        const note = `skipped ${slot.toISOString()}: the session is paused`;
        await updateSchedule(schedule.id, { lastResult: note });
        return this.announce('schedule.skipped', schedule.id, traceId, note);
      }
      const failures = schedule.failures + 1;
      const pause = failures >= FAILURES_TO_PAUSE && schedule.state === 'active';
      await updateSchedule(schedule.id, {
        failures,
        lastResult: pause ? `paused after ${failures} failures in a row: ${reason}` : `failed: ${reason}`,
        ...(pause && { state: 'paused' as const }),
      });
      this.announce('schedule.failed', schedule.id, traceId, reason);
    }
  }

  private announce(event: 'schedule.fired' | 'schedule.skipped' | 'schedule.failed', scheduleId: string, traceId: string, result: string): void {
    void findSchedule(scheduleId).then((schedule) => {
      if (schedule) this.host.bus.emit(event, schedule.sessionId, { schedule: scheduleJson(schedule), traceId, result });
    });
  }
}
