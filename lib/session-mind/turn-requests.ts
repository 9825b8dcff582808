// The requests of one Internal Dialog turn: its prompt fitted to the model's window (the history
// that fits, newest first; a share of it when the backend said the prompt was too long), with what
// the person attached shown beside their words — and sent again without the images, once, when
// the provider says the model refuses them.
import type { BackendRequest, BackendTool, ContentBlock } from '@/lib/backends/model-backend';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { isImageRefusal, learnBlind } from '@/lib/mind/image-sight';
import type { ModelCallResult } from '@/lib/mind/model-call';
import { buildInternalDialogRequest, type MoodAndCriteria } from '@/lib/mind/tags/build-prompts';
import { estimateRequestTokens, fitNewest, historyBudget } from '@/lib/mind/token-budget';
import { skillsPromptSection } from '@/lib/skills/skill-tools';
import type { AgentStepRecord, AgentTurnRecord } from '@/lib/store/tool-calls-repository';
import type { MindContext } from './mind-context';
import { hasImages, withoutImages, withVisuals } from './turn-visuals';

export type InternalDialogPrompt = { moodAndCriteria: MoodAndCriteria | null; userMessage: string | null; sLoud: string | null; task?: string | null; memory?: string | null };

/**
 * The Internal Dialog's request with ID_quiet_history fitted to what the window leaves after the
 * instructions, the M&C, the user's words, the summary and the answer; and what did not fit.
 */
export function fitInternalDialogPrompt(
  context: MindContext,
  prompt: InternalDialogPrompt,
  budgetShare: number,
  /** The tools the turn offers: their definitions take room in the window too. */
  tools?: BackendTool[],
  /** Images and documents shown with the user's words: they take room too. */
  visuals: readonly ContentBlock[] = [],
  /** The turn holds untrusted content already: its window shows what earlier turns wrote while reading (mind-memory.ts). */
  holdsUntrusted = false,
) {
  const config = context.session().models.c_model;
  const summary = context.memory.summaryEntry('internal');
  const skills = skillsPromptSection(context.skills());
  const build = (idQuietHistory: string[]) => {
    const request = buildInternalDialogRequest({
      ...prompt,
      idQuietHistory: summary ? [summary.text, ...idQuietHistory] : idQuietHistory,
      instructions: context.instructions,
      skills,
      model: config.model,
      maxTokens: config.max_tokens,
    });
    return { ...request, messages: request.messages.map((message) => withVisuals(message.content, visuals)), ...(tools?.length && { tools }) };
  };
  const budget = Math.floor(historyBudget({ config, fixedTokens: estimateRequestTokens(build([])), calibration: context.calibration(config.model) }) * budgetShare);
  const entries = context.memory.idQuietHistory(holdsUntrusted);
  const kept = fitNewest(entries, budget);
  return { request: build(kept.map((item) => item.text)), dropped: entries.slice(0, entries.length - kept.length) };
}

/** One turn's requests: fitted, with what is shown, and without refused images. */
export class TurnRequests {
  private shown: ContentBlock[];

  constructor(
    private readonly input: {
      context: MindContext;
      config: LayerModelConfig;
      prompt: InternalDialogPrompt;
      tools?: BackendTool[];
      /** What the person attached, and the notes on what was not shown. */
      visuals: { blocks: ContentBlock[]; notes: string[] };
      readsWithheld: boolean;
      /** A continued turn sends the user turn it first sent. */
      resume?: { turn: AgentTurnRecord; steps: AgentStepRecord[] };
      signal: AbortSignal;
    },
  ) {
    this.shown = input.visuals.blocks;
  }

  /** The request with `share` of the history budget. */
  fitted(share: number): BackendRequest {
    const { context, prompt, tools, readsWithheld, resume } = this.input;
    const { request } = fitInternalDialogPrompt(context, prompt, share, tools, this.shown, readsWithheld);
    if (!resume) return request;
    return { ...request, messages: [withVisuals(resume.turn.prompt, this.shown)] };
  }

  /** A model that refuses images (said by the provider) gets the call again without them, once. */
  async withoutRefusedImages(request: BackendRequest, answer: ModelCallResult, again: (request: BackendRequest) => Promise<ModelCallResult>): Promise<ModelCallResult> {
    if (!answer.error || answer.text || this.input.signal.aborted || !hasImages(request) || !isImageRefusal(answer.error.message)) return answer;
    learnBlind(this.input.config);
    this.shown = this.shown.filter((block) => block.type !== 'image');
    this.input.visuals.notes.push(`${this.input.config.model} refused the images (${answer.error.message.slice(0, 200)}): sent without them`);
    return again(withoutImages(request));
  }
}
