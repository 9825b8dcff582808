// What went wrong with the store, when it is the store's condition rather than a bug (issue 73 §3–4):
// the database cannot be reached (PostgreSQL stopped or restarting, the network to it gone), or the
// disk is full (SQLite's "database or disk is full", PostgreSQL's disk_full, ENOSPC). Both are waits,
// not failures: a person is told so in words, health says what is down, and loops back off.
import { errorText } from '@/lib/errors/error-text';

export type StoreFault = 'unreachable' | 'disk_full';

const UNREACHABLE_CODES = new Set(['P1001', 'P1002', 'P1017', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);
const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', '53100']);
const UNREACHABLE_WORDS = /can't reach database server|connection terminated|terminating connection|the database system is (starting up|shutting down)|connect ECONNREFUSED|server closed the connection|DatabaseNotReachable|ConnectionClosed/i;
const FULL_WORDS = /database or disk is full|no space left on device|could not extend file|disk.?full|ENOSPC/i;

/** The store's condition behind this error (its causes searched too), or null for anything else. */
export function storeFault(error: unknown): StoreFault | null {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current && typeof current === 'object' && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    const fields = current as { code?: unknown; errno?: unknown; message?: unknown; name?: unknown; kind?: unknown; originalCode?: unknown };
    const codes = [fields.code, fields.originalCode, fields.kind].filter((value): value is string => typeof value === 'string');
    const text = `${typeof fields.name === 'string' ? fields.name : ''} ${typeof fields.message === 'string' ? fields.message : ''}`;
    if (codes.some((code) => FULL_CODES.has(code)) || FULL_WORDS.test(text)) return 'disk_full';
    if (codes.some((code) => UNREACHABLE_CODES.has(code)) || UNREACHABLE_WORDS.test(text) || fields.name === 'PrismaClientInitializationError') return 'unreachable';
  }
  return null;
}

/** How long to wait before the next try after `tries` in a row met the store's condition: 1 s, doubling to a minute. */
export function storeFaultPauseMs(tries: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.min(6, Math.max(0, tries - 1)));
}

/** What a person is told. */
export const STORE_FAULT_WORDS: Record<StoreFault, string> = {
  unreachable: 'The database cannot be reached right now: nothing was taken. Try again in a moment.',
  disk_full: 'The disk is full: nothing was taken. Free some space; the app goes on by itself once there is room.',
};

/** What to tell a person of a failure: the store's condition in words, or the error's own line. */
export function failureText(error: unknown): string {
  const fault = storeFault(error);
  return fault ? STORE_FAULT_WORDS[fault] : errorText(error);
}

/** Logs a failure: the store's condition in one line (an outage fails every write the same way), anything else whole. */
export function logFailure(what: string, error: unknown): void {
  const fault = storeFault(error);
  if (fault) console.error(`${what}: ${STORE_FAULT_WORDS[fault]}`);
  else console.error(what, error);
}

/**
 * Runs a write again while the store's condition lasts (what it records exists only in memory, like
 * a tool's result): 1 s doubling to a minute, logged on the first try and every tenth. Anything else,
 * or the condition when `signal` stops the wait, is thrown.
 */
export async function writeThroughFault<T>(what: string, signal: AbortSignal, write: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await write();
    } catch (error) {
      const fault = storeFault(error);
      if (!fault || signal.aborted) throw error;
      if (tries === 1 || tries % 10 === 0) console.error(`${what} waits to be recorded: ${STORE_FAULT_WORDS[fault]} (try ${tries})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, storeFaultPauseMs(tries));
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }
}
