// The fencing token of issue 31: in a cluster, the mind's writes (a turn, a Subconscious cycle)
// carry the epoch of the session's lease this process holds, and the statement itself checks it
// against `session_leases` (locking the row FOR SHARE, so a move waits for the write or the write
// sees the move). A process paused past its lease (GC, sleep, SIGSTOP) whose session moved on
// commits nothing when it wakes: its write is refused with FencedWriteError.
import { processSlot } from '@/lib/process/process-state';

const fenceSlot = processSlot<{ on: number; epochs: Map<string, number>; refused: Set<(sessionId: string) => void> } | undefined>('store.fences', () => undefined);
const fences = (fenceSlot.value ??= { on: 0, epochs: new Map(), refused: new Set() });

export class FencedWriteError extends Error {
  readonly code = 'fenced';
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} moved to another process: this process's write was refused`);
    this.name = 'FencedWriteError';
  }
}

/** This process joined a cluster: from now on the mind's writes are fenced. */
export function enableFencing(): void {
  fences.on += 1;
}

/** Left the cluster (counted: a test may run several members in one process). */
export function disableFencing(): void {
  fences.on = Math.max(0, fences.on - 1);
  if (fences.on === 0) fences.epochs.clear();
}

/** The epoch of the lease this process holds (kept after it loses it: the old epoch is refused). */
export function holdEpoch(sessionId: string, epoch: number): void {
  fences.epochs.set(sessionId, epoch);
}

/**
 * The epoch a write for the session carries: null when not fenced (one process), 0 when this
 * process never held the session (refused).
 */
export function writeEpoch(sessionId: string): number | null {
  return fences.on > 0 ? (fences.epochs.get(sessionId) ?? 0) : null;
}

/** Called with the session of every refused write: the cluster stops that mind at once. */
export function onFencedWrite(listener: (sessionId: string) => void): () => void {
  fences.refused.add(listener);
  return () => fences.refused.delete(listener);
}

export function fencedWrite(sessionId: string): FencedWriteError {
  for (const listener of fences.refused) listener(sessionId);
  return new FencedWriteError(sessionId);
}

/** The SQL guard, for a statement whose session is $1 and epoch $n: true when it may write. */
export function fenceGuard(epochParam: number): string {
  return `($${epochParam}::bigint IS NULL OR EXISTS (SELECT 1 FROM session_leases WHERE session_id = $1 AND epoch = $${epochParam}::bigint FOR SHARE))`;
}
