// The daily allowances at the model boundary (issue 48, ARCHITECTURE §24): before a call, its
// worst case — the prompt as estimated plus max_tokens of answer, priced from the catalog — is
// reserved on every allowance the session answers to; after it, what the call really cost is
// settled. A call an allowance cannot take is not made: it fails at once as `allowance_spent`, with
// the time the allowance's day ends as when to try again, and the reason in words.
import type { BackendRequest, Usage } from '@/lib/backends/model-backend';
import { estimateCost } from '@/lib/backends/pricing';
import { z } from 'zod';
import { readJsonSetting, writeJsonSetting } from '@/lib/store/settings-repository';
import { allowancesForSession, claimNotice, dayFigures, listAllowances, localDay, reserve, settle, type AllowanceRecord, type AllowanceRefusal, type Reservation } from '@/lib/store/allowances-repository';
import { estimateRequestTokens } from './token-budget';

/** The most a call could cost: dollars (0 for a model without a known price: its tokens count) and tokens. */
export function worstCase(request: BackendRequest): { usd: number; tokens: number } {
  const promptTokens = estimateRequestTokens(request);
  const usd = estimateCost(request.model, { inputTokens: promptTokens, outputTokens: request.maxTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });
  return { usd: usd === 'unknown' ? 0 : usd, tokens: promptTokens + request.maxTokens };
}

/** What a finished call cost, as its usage says (a call that reported none cost nothing we know of). */
export function actualCost(usage: Usage | null): { usd: number; tokens: number } {
  if (!usage) return { usd: 0, tokens: 0 };
  return { usd: usage.costUsd === 'unknown' ? 0 : usage.costUsd, tokens: usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens };
}

const scopeName = (refusal: AllowanceRefusal) => (refusal.allowance.scope === 'app' ? 'the app' : refusal.allowance.scope === 'persona' ? `the persona ${refusal.allowance.scopeId}` : 'this person');

/** The refusal in words: whose allowance, how much of it is gone, what the call could take, when it comes back. */
export function describeRefusal(refusal: AllowanceRefusal, worst: { usd: number; tokens: number }): string {
  const amount = (value: number) => (refusal.unit === 'usd' ? `$${value < 0.01 && value > 0 ? value.toFixed(4) : value.toFixed(2)}` : `${Math.round(value).toLocaleString('en-US')} tokens`);
  const call = refusal.unit === 'usd' ? worst.usd : worst.tokens;
  return `today's allowance of ${amount(refusal.limit)} for ${scopeName(refusal)} cannot take this call (up to ${amount(call)}; ${amount(refusal.spent)} spent, ${amount(refusal.reserved)} in calls running); it renews at midnight ${refusal.allowance.timeZone}`;
}

/** Milliseconds from `now` until the allowance's next local day begins (found by stepping, so DST is honoured). */
export function untilNextDay(now: Date, timeZone: string): number {
  const today = localDay(now, timeZone);
  let low = now.getTime();
  let high = low + 26 * 60 * 60 * 1000;
  while (high - low > 1_000) {
    const middle = Math.floor((low + high) / 2);
    if (localDay(new Date(middle), timeZone) === today) low = middle;
    else high = middle;
  }
  return high - now.getTime();
}

export type AllowanceHold = { ok: true; reservation: Reservation } | { ok: false; refusal: AllowanceRefusal; message: string; retryAfterMs: number };

const overrideSchema = z.object({ until: z.string().datetime() }).nullable();

/** The owner's override (one click, until the app's next midnight): their own replies go past the allowances. */
export async function overrideUntil(now: Date): Promise<Date | null> {
  const saved = await readJsonSetting('allowance_override', overrideSchema, 'the allowance override', null);
  return saved && Date.parse(saved.until) > now.getTime() ? new Date(saved.until) : null;
}

/** Lets the owner's own replies past the allowances until the app allowance's next midnight (null: ends it). */
export async function setOverride(now: Date | null): Promise<Date | null> {
  if (!now) {
    await writeJsonSetting('allowance_override', null);
    return null;
  }
  const zone = (await listAllowances()).find((allowance) => allowance.scope === 'app')?.timeZone ?? 'UTC';
  const until = new Date(now.getTime() + untilNextDay(now, zone));
  await writeJsonSetting('allowance_override', { until: until.toISOString() });
  return until;
}

/**
 * Reserves a call's worst case for a session (nothing to hold when no allowance applies).
 * `overridden`: whether the owner's override lets this call past the limits (the rights
 * authority's ownerOverride; its cost is still counted on the day).
 */
export async function holdAllowance(sessionId: string, request: BackendRequest, now: Date, overridden?: () => Promise<boolean>): Promise<AllowanceHold> {
  const allowances = await allowancesForSession(sessionId);
  if (allowances.length === 0) return { ok: true, reservation: { parts: [], usd: 0, tokens: 0 } };
  const worst = worstCase(request);
  const held = await reserve(allowances, worst, now);
  if (held.ok) return held;
  if (overridden && (await overridden())) {
    const past = await reserve(allowances.map((allowance) => ({ ...allowance, usdPerDay: null, tokensPerDay: null })), worst, now);
    if (past.ok) return past;
  }
  return { ok: false, refusal: held.refusal, message: describeRefusal(held.refusal, worst), retryAfterMs: untilNextDay(now, held.refusal.allowance.timeZone) };
}

export { settle as settleAllowance };

/** The first allowance of the session whose day is used up (spent and running calls at its limit), or null. */
export async function spentAllowance(sessionId: string, now: Date): Promise<AllowanceRecord | null> {
  const allowances = await allowancesForSession(sessionId);
  if (allowances.length === 0) return null;
  for (const figures of await dayFigures(allowances, now)) {
    const { usdPerDay, tokensPerDay } = figures.allowance;
    if ((usdPerDay !== null && figures.spentUsd + figures.reservedUsd >= usdPerDay) || (tokensPerDay !== null && figures.spentTokens + figures.reservedTokens >= tokensPerDay)) return figures.allowance;
  }
  return null;
}

/** Of an allowance's day, the share that makes the owner hear of it once (80%). */
export const NOTICE_SHARE = 0.8;

export interface AllowanceNotice {
  scope: AllowanceRecord['scope'];
  scope_id: string;
  day: string;
  unit: 'usd' | 'tokens';
  spent: number;
  limit: number;
  message: string;
}

/** The allowances of the session whose day has just passed 80%, each claimed once a day (across processes). */
export async function noticesDue(sessionId: string, now: Date): Promise<AllowanceNotice[]> {
  const allowances = await allowancesForSession(sessionId);
  if (allowances.length === 0) return [];
  const due: AllowanceNotice[] = [];
  for (const figures of await dayFigures(allowances, now)) {
    if (figures.noticedAt) continue;
    const { usdPerDay, tokensPerDay } = figures.allowance;
    const unit = usdPerDay !== null && usdPerDay > 0 && figures.spentUsd >= NOTICE_SHARE * usdPerDay ? 'usd' : tokensPerDay !== null && tokensPerDay > 0 && figures.spentTokens >= NOTICE_SHARE * tokensPerDay ? 'tokens' : null;
    if (!unit || !(await claimNotice(figures.allowance.id, figures.day, now))) continue;
    const spent = unit === 'usd' ? figures.spentUsd : figures.spentTokens;
    const limit = unit === 'usd' ? usdPerDay! : tokensPerDay!;
    const amount = (value: number) => (unit === 'usd' ? `$${value.toFixed(2)}` : `${Math.round(value).toLocaleString('en-US')} tokens`);
    const whose = figures.allowance.scope === 'app' ? 'the app' : figures.allowance.scope === 'persona' ? `the persona ${figures.allowance.scopeId}` : 'a person';
    due.push({
      scope: figures.allowance.scope,
      scope_id: figures.allowance.scopeId,
      day: figures.day,
      unit,
      spent,
      limit,
      message: `${Math.floor((spent / limit) * 100)}% of today's allowance for ${whose} is spent (${amount(spent)} of ${amount(limit)}); at the limit the agent stops calling models until midnight ${figures.allowance.timeZone}.`,
    });
  }
  return due;
}
