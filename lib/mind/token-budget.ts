// Token counts for context budgets: a local estimate, corrected per model by what the backends
// report (calibration), so budgets hold on real tokenizers without shipping them.
import { contextWindowFor } from '@/lib/backends/model-limits';
import type { BackendMessage, BackendRequest, ContentBlock } from '@/lib/backends/model-backend';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { processSlot } from '@/lib/process/process-state';

/**
 * Local estimate: ~4 characters a token for ASCII text, a token per character beyond it
 * (CJK and most symbols cost about that). Deliberately simple; calibration corrects it.
 */
export function estimateTokens(text: string): number {
  if (text.length < 4096) return countTokens(text);
  // A call's system prompt, tool definitions and earlier results are counted again at every step
  // (the window is fitted, the calibration fed): long texts are counted once while they are kept.
  const known = counted.get(text);
  if (known !== undefined) return known;
  const tokens = countTokens(text);
  if (text.length <= 256 * 1024) {
    if (counted.size >= 32) counted.delete(counted.keys().next().value!);
    counted.set(text, tokens);
  }
  return tokens;
}

const counted = processSlot('mind.token-counts', () => new Map<string, number>()).value;

/** A quarter token per ASCII character, one per other UTF-16 unit (the regular expression runs natively). */
function countTokens(text: string): number {
  const other = text.length - text.replace(/[^\x00-\x7f]+/g, '').length;
  return Math.ceil((text.length - other) / 4) + other;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool-call':
      return `${block.name}${JSON.stringify(block.input)}`;
    case 'tool-result':
      return block.content;
    default:
      return '';
  }
}

/** Images and documents count what their provider's formula says (computed when they were prepared). */
function visualTokens(block: ContentBlock): number {
  if (block.type === 'image' || block.type === 'document') return block.tokens;
  if (block.type === 'tool-result') return (block.images ?? []).reduce((sum, image) => sum + image.tokens, 0);
  return 0;
}

function messageTokens(message: BackendMessage): number {
  if (!message.blocks) return estimateTokens(message.content);
  return estimateTokens(message.blocks.map(blockText).filter(Boolean).join('\n')) + message.blocks.reduce((sum, block) => sum + visualTokens(block), 0);
}

/** The whole prompt as the backend sees it: system, messages (tool calls and results, images included) and tool definitions. */
export function estimateRequestTokens(request: Pick<BackendRequest, 'system' | 'messages' | 'tools'>): number {
  const tools = request.tools?.length ? estimateTokens(JSON.stringify(request.tools)) : 0;
  return request.system.reduce((sum, segment) => sum + estimateTokens(segment.text), 0) + request.messages.reduce((sum, message) => sum + messageTokens(message), 0) + tools;
}

/** Per model: reported input tokens / local estimate, smoothed, within sane bounds. */
export class TokenCalibration {
  private readonly factors = new Map<string, number>();

  factor(model: string): number {
    return this.factors.get(model) ?? 1;
  }

  observe(model: string, estimated: number, reported: number): void {
    if (estimated < 50 || reported <= 0) return; // too small to say anything
    const ratio = Math.min(4, Math.max(0.5, reported / estimated));
    const previous = this.factors.get(model);
    this.factors.set(model, previous === undefined ? ratio : previous * 0.7 + ratio * 0.3);
  }
}

/** Room left for history in a layer's prompt, in local-estimate units. */
export function historyBudget(input: {
  config: LayerModelConfig;
  fixedTokens: number;
  calibration: number;
  /** Share of the window kept free for estimation error. */
  marginShare?: number;
}): number {
  const window = contextWindowFor(input.config);
  const margin = Math.ceil(window * (input.marginShare ?? 0.05));
  const available = window - input.config.max_tokens - margin;
  // The budget is in real tokens; entries are counted locally, so divide by the factor.
  return Math.max(0, Math.floor(available / input.calibration) - input.fixedTokens);
}

/** The newest entries that fit `budget` (each costs its tokens plus a separator), oldest first. */
export function fitNewest<T extends { tokens: number }>(entries: readonly T[], budget: number, separatorTokens = 2): T[] {
  let used = 0;
  let start = entries.length;
  while (start > 0) {
    const cost = entries[start - 1]!.tokens + separatorTokens;
    if (used + cost > budget) break;
    used += cost;
    start--;
  }
  return entries.slice(start);
}

/**
 * Two histories sharing one budget: the first gets `share` of it, the second the rest plus what
 * the first left unused, then the first takes what the second left.
 */
export function fitPair<T extends { tokens: number }>(first: readonly T[], second: readonly T[], budget: number, share: number): [T[], T[]] {
  const cost = (items: T[]) => items.reduce((sum, item) => sum + item.tokens + 2, 0);
  const firstTry = fitNewest(first, Math.floor(budget * share));
  const secondFit = fitNewest(second, budget - cost(firstTry));
  return [fitNewest(first, budget - cost(secondFit)), secondFit];
}

/** Where each history's window starts (a cycle number): entries from there on are sent. */
export interface HistoryWindow {
  firstFrom: number;
  secondFrom: number;
}

/** Once a window must shrink, it shrinks to this share of its budget and entry limit at once. */
export const windowLowWater = 0.75;

/**
 * fitPair with hysteresis: the windows keep their start while everything since it fits, so the
 * prompt only grows at the end and its prefix stays cacheable; when they no longer fit (budget
 * or entry limit), both are cut to the low-water mark in one step rather than losing an entry
 * per call — the prefix changes once per many calls instead of every call.
 */
export function fitPairSteadily<T extends { tokens: number; cycle: number | null }>(
  first: readonly T[],
  second: readonly T[],
  input: { budget: number; share: number; maxEntries: number; window: HistoryWindow },
): { kept: [T[], T[]]; window: HistoryWindow } {
  const cost = (items: readonly T[]) => items.reduce((sum, item) => sum + item.tokens + 2, 0);
  const since = (items: readonly T[], from: number) => items.filter((item) => (item.cycle ?? 0) >= from);
  const current: [T[], T[]] = [since(first, input.window.firstFrom), since(second, input.window.secondFrom)];
  const fits = cost(current[0]) + cost(current[1]) <= input.budget && current[0].length <= input.maxEntries && current[1].length <= input.maxEntries;
  if (fits) return { kept: current, window: input.window };
  const newest = Math.floor(input.maxEntries * windowLowWater);
  const [firstFit, secondFit] = fitPair(first.slice(-newest), second.slice(-newest), Math.floor(input.budget * windowLowWater), input.share);
  const from = (kept: T[], all: readonly T[]) => (kept[0]?.cycle ?? (all.at(-1)?.cycle ?? 0) + 1);
  return { kept: [firstFit, secondFit], window: { firstFrom: from(firstFit, first), secondFrom: from(secondFit, second) } };
}
