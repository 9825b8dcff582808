// Fallback models (issue 78 §2): which failed calls go to a layer's next model, and for how long the
// first one rests after it failed so. A call goes on to the next model only when another backend
// could serve it — a rate limit past the retries, an overload, a quota or subscription that stopped
// covering calls, a server that cannot be reached, a timeout, a server error — and only before the
// reply has spoken: a reply that spoke is never asked again. A model the server does not serve, a
// refusal of the content, a prompt too long, a bad key are settings or answers: no fallback.
import type { BackendError, BackendErrorKind } from '@/lib/backends/backend-error';
import type { FallbackModelConfig, LayerModelConfig } from '@/lib/config/model-config';

/** After a failover the first model is not asked again for this long; then it is, once, first. */
export const FALLBACK_COOL_DOWN_MS = 5 * 60_000;

const servableElsewhere = new Set<BackendErrorKind>(['rate_limited', 'overloaded', 'server', 'timeout', 'connection', 'stream_interrupted', 'cli_missing']);

/** A provider's words for an account that cannot make calls now (a usage limit, no credit left, a plan that does not cover it). */
const quotaWords = /usage limit|quota|credit balance|insufficient[_ ]credits?|billing|subscription|plan does not|out of credits|limit reached/i;

/** Why this failure goes to the next model, or null when it must not (settings, answers, spoken replies). */
export function failoverReason(error: BackendError, spoke: boolean): string | null {
  if (spoke || error.afterOutput) return null;
  if (error.kind === 'model_not_found' || error.kind === 'prompt_too_long' || error.kind === 'allowance_spent') return null;
  if (servableElsewhere.has(error.kind)) return `${error.kind.replace('_', ' ')}: ${error.message}`;
  // Out of quota says so in words, whatever status or exit code carried it.
  if (['cli_failed', 'permission', 'invalid_request', 'authentication', 'rate_limited'].includes(error.kind) && quotaWords.test(`${error.message} ${error.stderrExcerpt ?? ''}`)) return `out of quota: ${error.message}`;
  return null;
}

/** The layer's models in order: its own, then its fallbacks. */
export function modelChain(config: LayerModelConfig): FallbackModelConfig[] {
  const { fallbacks, ...first } = config;
  return [first, ...(fallbacks ?? [])];
}

/** A layer answering on a fallback while its first model cools down. */
export interface FallbackInUse {
  /** The chain's index that answered last (1 = the first fallback). */
  index: number;
  backend: string;
  model: string;
  /** Why the model before it was left. */
  reason: string;
  /** Clock ms when the first model is asked again. */
  until: number;
}
