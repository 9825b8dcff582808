// Claude Code CLI processes started ahead (issue 43 §4). Most of the CLI's cost per call is its own
// start-up, and it starts up before it reads the prompt from stdin: a process started with the
// very same arguments as the next call, waiting on stdin, answers about twice as fast. A layer
// that calls with the same arguments again and again (the Subconscious: its system prompt and
// model are fixed per session) gets one; anything else never does — a process is started ahead
// only for arguments already seen twice, the last time sooner than a waiting process is kept, so
// prompts that change every call, and a mind resting for minutes between calls, cost nothing.
//
// Bounded and reaped: at most `max` waiting processes in the app (the least recently offered goes
// first), each ended after `idleMs` unused, none started while free memory is short, all ended on
// stop. A waiting process holds only a pipe: if the app dies, its stdin closes and the CLI exits
// on the empty prompt without a request.
import os from 'node:os';
import { readEnv } from '@/lib/config/env';
import { processSlot } from '@/lib/process/process-state';

export interface WarmProcess {
  /** Ends it unused. */
  kill(): void;
  /** False once it has exited on its own. */
  alive(): boolean;
}

export interface CliWarmPoolOptions {
  max: number;
  idleMs: number;
  /** Free memory below which nothing is started ahead. */
  minFreeBytes?: number;
  freeMemory?: () => number;
  now?: () => number;
}

interface Waiting<P extends WarmProcess> {
  process: P;
  timer: NodeJS.Timeout;
}

/** How many calls' arguments are remembered to spot a repeat. */
const REMEMBERED = 64;

export class CliWarmPool<P extends WarmProcess = WarmProcess> {
  private readonly waiting = new Map<string, Waiting<P>>();
  /** Per arguments: how often seen, when last, and the gap before that. */
  private readonly seen = new Map<string, { count: number; at: number; gap: number }>();
  /** Per arguments: the sessions whose calls used them (a process waiting for them is theirs). */
  private readonly owners = new Map<string, Set<string>>();
  hits = 0;
  misses = 0;

  constructor(private readonly options: CliWarmPoolOptions) {}

  /** A process started ahead for exactly these arguments, if one is waiting and alive. */
  take(key: string, owner?: string): P | undefined {
    const entry = this.waiting.get(key);
    this.remember(key);
    this.own(key, owner);
    if (!entry) {
      this.misses++;
      return undefined;
    }
    this.waiting.delete(key);
    clearTimeout(entry.timer);
    if (!entry.process.alive()) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    return entry.process;
  }

  /** After a call: starts the next one ahead if these arguments repeat and there is room. */
  offer(key: string, spawn: () => P, owner?: string): void {
    this.own(key, owner);
    const seen = this.seen.get(key);
    if (this.options.max <= 0 || this.waiting.has(key) || !seen || seen.count < 2 || seen.gap >= this.options.idleMs) return;
    const free = (this.options.freeMemory ?? os.freemem)();
    if (free < (this.options.minFreeBytes ?? 1024 ** 3)) return;
    while (this.waiting.size >= this.options.max) this.drop(this.waiting.keys().next().value as string);
    const process = spawn();
    const timer = setTimeout(() => this.drop(key), this.options.idleMs);
    timer.unref();
    this.waiting.set(key, { process, timer });
  }

  get size(): number {
    return this.waiting.size;
  }

  closeAll(): void {
    for (const key of [...this.waiting.keys()]) this.drop(key);
  }

  /**
   * A session paused or stopped (red-team round 4): the processes waiting for arguments only its
   * calls used are ended now, not when they time out; ones another session also uses stay.
   */
  release(owner: string): void {
    for (const [key, owners] of this.owners) {
      if (!owners.delete(owner)) continue;
      if (owners.size === 0) {
        this.owners.delete(key);
        this.drop(key);
      }
    }
  }

  private own(key: string, owner: string | undefined): void {
    if (!owner) return;
    const owners = this.owners.get(key) ?? new Set<string>();
    owners.add(owner);
    this.owners.set(key, owners);
    if (this.owners.size > REMEMBERED) this.owners.delete(this.owners.keys().next().value as string);
  }

  private drop(key: string): void {
    const entry = this.waiting.get(key);
    if (!entry) return;
    this.waiting.delete(key);
    clearTimeout(entry.timer);
    entry.process.kill();
  }

  private remember(key: string): void {
    const now = (this.options.now ?? Date.now)();
    const before = this.seen.get(key);
    this.seen.delete(key);
    this.seen.set(key, { count: (before?.count ?? 0) + 1, at: now, gap: before ? now - before.at : Infinity });
    if (this.seen.size > REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
  }
}

/** The app's pool: `AGENTCSD_CLI_WARM` waiting processes at most (default 4; 0 turns it off), each kept 2 minutes unused. */
export function appCliWarmPool<P extends WarmProcess>(): CliWarmPool<P> {
  const warmSlot = processSlot<CliWarmPool<P> | undefined>('backends.cli-warm', () => undefined);
  if (!warmSlot.value) {
    warmSlot.value = new CliWarmPool({ max: readEnv().AGENTCSD_CLI_WARM, idleMs: 120_000 });
  }
  return warmSlot.value;
}
