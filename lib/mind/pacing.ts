// How long the Subconscious waits between cycles (ARCHITECTURE §6, seed 003's DMN). Pure: the
// mind passes what it knows and gets back an activity and a delay, so an idle hour can be
// simulated in milliseconds with the real rules.
import type { SessionParams } from '@/lib/config/model-config';

export const activities = ['engaged', 'working', 'foraging', 'resting'] as const;
export type Activity = (typeof activities)[number];

/** Pause between cycles in adaptive mode. Resting stays under the 5-minute prompt-cache lifetime. */
export const adaptiveDelayMs: Record<Activity, number> = {
  working: 3_000,
  engaged: 5_000,
  foraging: 30_000,
  resting: 270_000,
};

/** A turn that ended this recently still counts as momentum. */
export const workingWindowMs = 30_000;
/** The user spoke this recently: stay close. */
export const engagedWindowMs = 60_000;
/** After this long without the user, the mind rests. */
export const foragingWindowMs = 10 * 60_000;

export interface PacingInput {
  now: number;
  /** Last user message, or when the mind started if the user has not spoken since. */
  lastUserAt: number;
  turnRunning: boolean;
  lastTurnEndedAt: number | null;
  spontaneousCapReached: boolean;
}

/** A running turn outranks everything; a reached spontaneous cap outranks a recent turn. */
export function currentActivity(input: PacingInput): Activity {
  if (input.turnRunning) return 'working';
  if (input.spontaneousCapReached) return 'resting';
  if (input.lastTurnEndedAt !== null && input.now - input.lastTurnEndedAt < workingWindowMs) return 'working';
  const sinceUser = input.now - input.lastUserAt;
  if (sinceUser < engagedWindowMs) return 'engaged';
  if (sinceUser >= foragingWindowMs) return 'resting';
  return 'foraging';
}

export function cycleDelayMs(pacing: SessionParams['pacing'], activity: Activity): number {
  switch (pacing) {
    case 'continuous':
      return 0;
    case 'adaptive':
      return adaptiveDelayMs[activity];
  }
}

/** Backoff after `failures` consecutive failed cycles: retry-after wins, else capped exponential with jitter. */
export function failureBackoffMs(failures: number, retryAfterMs: number | undefined, random: () => number): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, 1_000), 5 * 60_000);
  const ceiling = Math.min(5 * 60_000, 2_000 * 2 ** (failures - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/** After this many consecutive failures the session shows as degraded, with the reason. */
export const degradedAfterFailures = 3;

/**
 * Failures that only a change of settings can cure (the server does not serve the model): the
 * session is degraded at the first one and the loop waits the longest backoff instead of calling
 * again every few seconds; changing the session's models wakes it at once.
 */
export function needsNewSettings(kind: string): boolean {
  return kind === 'model_not_found';
}

export const longestBackoffMs = 5 * 60_000;

/**
 * Whether the Subconscious's cycle makes the agent speak on its own: by the trigger tag (default) or
 * by S_loud's length; the cap stops runaway monologues; a reply already under way makes it wait.
 */
export function spontaneousVerdict(
  params: Pick<SessionParams, 'trigger_mode' | 'trigger_threshold' | 'spontaneous_cap'>,
  outcome: { sLoud: string; trigger: boolean },
  consecutiveSpontaneous: number,
  busy: boolean,
): 'started' | 'capped' | 'busy' | 'none' {
  const wants = params.trigger_mode === 'tag' ? outcome.trigger : outcome.sLoud.trim().length > params.trigger_threshold;
  if (!wants) return 'none';
  if (consecutiveSpontaneous >= params.spontaneous_cap) return 'capped';
  return busy ? 'busy' : 'started';
}
