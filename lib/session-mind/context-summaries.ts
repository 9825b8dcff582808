// Summaries that keep a long session's memory within budget (seed 000 §2.3, §11.4): every N
// cycles, the history entries that no longer fit a layer's window are folded, with the previous
// summary, into a new compact summary by the S_model. The summary is stored in
// context_summaries (layer, from-cycle, to-cycle) and becomes the first entry of that history;
// the folded entries stay in the database.
import type { LayerModelConfig } from '@/lib/config/model-config';
import { insertSummary, type SummaryLayer, type SummaryRecord } from '@/lib/store/mind-repository';
import type { MindContext } from './mind-context';
import type { MemoryEntry } from './mind-memory';

export const summarySystemPrompt = `You keep the long-term memory of an agent's mind. You receive the summary so far (possibly empty) and older entries that are leaving the agent's working memory. Write one compact summary that replaces both: keep what still matters (facts about the user, commitments, open questions, recurring feelings, decisions), drop repetition, keep the order of events. Plain text, no tags, at most 200 words.`;

const layerNames: Record<SummaryLayer, string> = {
  subconscious: "the Subconscious's private thoughts and notes to the Internal Dialog",
  internal: "the Internal Dialog's private thoughts",
};

/** Summary budget: enough for ~200 words, never more than the layer's own max_tokens. */
const summaryMaxTokens = (config: LayerModelConfig) => Math.min(600, config.max_tokens);

export async function summarise(
  context: MindContext,
  input: { layer: SummaryLayer; previous: SummaryRecord | null; dropped: readonly MemoryEntry[]; signal: AbortSignal },
): Promise<SummaryRecord | null> {
  if (input.dropped.length === 0) return null;
  const config = context.session().models.s_model;
  const cycles = input.dropped.map((item) => item.cycle ?? 0);
  const fromCycle = input.previous?.fromCycle ?? Math.min(...cycles);
  const toCycle = Math.max(...cycles);
  const user = [
    `These are ${layerNames[input.layer]}.`,
    `Summary so far:\n${input.previous?.summary ?? '(none)'}`,
    `Entries leaving working memory (cycles ${Math.min(...cycles)}–${toCycle}), oldest first:\n${input.dropped.map((item) => item.text).join('\n---\n')}`,
  ].join('\n\n');
  const result = await context.callModel({
    layer: 'summary',
    config,
    request: { system: [{ text: summarySystemPrompt, cache: true }], messages: [{ role: 'user', content: user }], model: config.model, maxTokens: summaryMaxTokens(config) },
    signal: input.signal,
  });
  const text = result.text.trim();
  if (result.error || result.aborted || !text) return null; // try again at the next summary point
  const summary: SummaryRecord = { layer: input.layer, summary: text, fromCycle, toCycle };
  await insertSummary({ sessionId: context.sessionId, ...summary });
  return summary;
}
