// How a mind's two layers are faring: consecutive failures, the latest error (or retry) kept until
// that layer succeeds, the Subconscious's backoff, and the "degraded" reason a session shows.
import type { BackendErrorKind } from '@/lib/backends/backend-error';
import type { EventPayloads, MindState } from '@/lib/mind/events';
import { degradedAfterFailures, failureBackoffMs, longestBackoffMs, needsNewSettings } from '@/lib/mind/pacing';
import type { FallbackInUse } from '@/lib/mind/failover';
import type { CallLayer } from '@/lib/store/mind-repository';

export type MindLayer = 'internal' | 'subconscious';

const layerNames: Record<MindLayer, string> = { internal: 'Internal Dialog', subconscious: 'Subconscious' };

export class LayerHealth {
  readonly failures: Record<MindLayer, number> = { internal: 0, subconscious: 0 };
  lastError: MindState['lastError'] = null;
  degraded: string | null = null;
  /** The Subconscious does not call before this time (clock ms). */
  backoffUntil = 0;
  /** Per call layer, the fallback that answers while its first model cools down (issue 78 §2). */
  readonly fallbacks: Partial<Record<CallLayer, FallbackInUse>> = {};

  constructor(
    private readonly now: () => number,
    private readonly random: () => number,
  ) {}

  /** A failed call; returns how many in a row, and for the Subconscious its backoff (ms). */
  failure(layer: MindLayer, kind: BackendErrorKind, message: string, retryAfterMs?: number): { failures: number; backoffMs?: number } {
    const failures = ++this.failures[layer];
    this.lastError = { layer, kind, message, at: new Date(this.now()).toISOString() };
    const stuck = needsNewSettings(kind);
    let backoffMs: number | undefined;
    if (layer === 'subconscious') {
      backoffMs = stuck ? longestBackoffMs : failureBackoffMs(failures, retryAfterMs, this.random);
      this.backoffUntil = this.now() + backoffMs;
    }
    if (kind === 'allowance_spent') this.degraded = `${layerNames[layer]}: ${message}`;
    else if (stuck) this.degraded = `${layerNames[layer]}: ${message} — choose another model in the session settings`;
    else if (failures >= degradedAfterFailures) this.degraded = `${layerNames[layer]}: ${failures} failures in a row — ${message}`;
    return { failures, backoffMs };
  }

  /** A backend waiting to retry: shown as the layer's latest error until it succeeds. */
  retrying(layer: MindLayer, kind: BackendErrorKind, message: string): void {
    this.lastError = { layer, kind, message, at: new Date(this.now()).toISOString() };
  }

  success(layer: MindLayer): void {
    this.failures[layer] = 0;
    if (this.lastError?.layer === layer) this.lastError = null;
    if (layer === 'subconscious') this.backoffUntil = 0;
    if (this.degraded && this.failures.internal < degradedAfterFailures && this.failures.subconscious < degradedAfterFailures) this.degraded = null;
  }

  /** What the session's state shows of it: degraded or not, the latest error, the layers on a fallback now. */
  shown(): Pick<MindState, 'degraded' | 'lastError' | 'fallbacks'> {
    const fallbacks = Object.entries(this.fallbacks).map(([layer, used]) => ({ layer, backend: used.backend, model: used.model, reason: used.reason, until: new Date(used.until).toISOString() }));
    return { degraded: this.degraded, lastError: this.lastError, fallbacks };
  }

  /** New settings deserve a fresh start: nothing carried over from the old ones. */
  reset(): void {
    this.success('internal');
    this.success('subconscious');
    for (const layer of Object.keys(this.fallbacks) as CallLayer[]) delete this.fallbacks[layer];
  }
}

/** The `error` event of a failure: a retry is never announced sooner than the pacing's own delay. */
export function failureEvent(input: {
  layer: MindLayer;
  message: string;
  kind: BackendErrorKind;
  failures: number;
  backoffMs?: number;
  pacingDelayMs: number;
  cycle?: number;
  turnId?: string;
}): EventPayloads['error'] {
  const retryInMs = input.backoffMs === undefined ? undefined : Math.max(input.backoffMs, input.pacingDelayMs);
  return {
    layer: input.layer,
    message: input.message,
    kind: input.kind,
    ...(input.cycle !== undefined && { cycle: input.cycle }),
    ...(input.turnId !== undefined && { turnId: input.turnId }),
    ...(retryInMs !== undefined && { retryInMs }),
    consecutiveFailures: input.failures,
  };
}
