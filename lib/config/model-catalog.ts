// What we know of models without asking a server: the Claude Code CLI's aliases, the Anthropic
// model ids the pinned SDK lists with its deprecation table, and per-backend defaults that do not
// go stale. A server's own list (listModels) is the better source and wins where it answers.
export const backendKinds = ['claude_code_cli', 'anthropic', 'openai_compatible'] as const;
export type BackendKind = (typeof backendKinds)[number];

/**
 * The CLI resolves these to the newest model of each line itself (`claude --help`: "Use an
 * alias for the latest model"); with CLI 2.1.330 sonnet → claude-sonnet-5-5, haiku →
 * claude-haiku-5-5, opus → claude-opus-5-5, fable → claude-fable-5-2 (seen in its init line).
 */
export const cliModelAliases = ['sonnet', 'haiku', 'opus', 'fable'] as const;

/** The `Model` union of @anthropic-ai/sdk 1.12.0 (resources/messages/messages.d.ts), newest first. */
export const anthropicSdkModels = [
  'claude-fable-5-2',
  'claude-mythos-5-2',
  'claude-haiku-5-5',
  'claude-sonnet-5-5',
  'claude-fable-5-1',
  'claude-opus-5-5',
  'claude-mythos-5-1',
  'claude-sonnet-5',
  'claude-fable-5',
  'claude-mythos-5',
  'claude-opus-5',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-mythos-preview',
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-haiku-4-5',
  'claude-haiku-4-5-20251001',
  'claude-opus-4-5',
  'claude-opus-4-5-20251101',
  'claude-sonnet-4-5',
  'claude-sonnet-4-5-20250929',
] as const;

/**
 * End-of-life dates (ISO) of deprecated models: the SDK's own table (internal/data/
 * deprecated-models.js of 1.12.0, which it prints a warning from on every call). A unit test
 * keeps this equal to the installed SDK's, so an SDK upgrade cannot leave it stale.
 */
export const deprecatedModels: Readonly<Record<string, string>> = {
  'claude-mythos-preview': '2026-06-30',
  'claude-sonnet-4-5': '2026-11-30',
  'claude-sonnet-4-5-20250929': '2026-11-30',
};

/** What replaces a deprecated model on the same backend: the current model of its line. */
const successorOfLine: Record<string, string> = { sonnet: 'claude-sonnet-5-5', haiku: 'claude-haiku-5-5', opus: 'claude-opus-5-5', mythos: 'claude-mythos-5-2', fable: 'claude-fable-5-2' };

/** Defaults per backend for the two layers: a strong model for C, a cheap fast one for S. */
export const defaultModelIds: Record<BackendKind, { c_model: string; s_model: string } | null> = {
  claude_code_cli: { c_model: 'sonnet', s_model: 'haiku' },
  anthropic: { c_model: 'claude-sonnet-5-5', s_model: 'claude-haiku-5-5' },
  // A local server's models are whatever the user pulled: picked from its own list.
  openai_compatible: null,
};

export interface Deprecation {
  /** ISO date (YYYY-MM-DD) the provider stops serving the model. */
  endOfLife: string;
  /** True once that date has passed: calls are expected to fail. */
  ended: boolean;
  /** A current model of the same line to switch to. */
  replacement?: string;
}

/** Whether the model is deprecated (as the SDK or the server reports it), and what replaces it. */
export function deprecationOf(model: string, now: Date = new Date(), reported?: { retiresAt?: string | null }): Deprecation | null {
  const endOfLife = reported?.retiresAt?.slice(0, 10) ?? deprecatedModels[model.trim().toLowerCase()];
  if (!endOfLife) return null;
  const line = /^claude-([a-z]+)-/.exec(model.toLowerCase())?.[1];
  return {
    endOfLife,
    ended: now.getTime() >= Date.parse(`${endOfLife}T00:00:00Z`) + 24 * 3_600_000,
    ...(line && successorOfLine[line] && { replacement: successorOfLine[line] }),
  };
}

/** A model a backend offers, as the settings form lists it. */
export interface ModelListing {
  id: string;
  label?: string;
  /** Set for a deprecated model: when it ends. */
  end_of_life?: string;
  context_window?: number;
}

/** The CLI's list: its aliases first (they never go stale), then the full ids it also accepts. */
export function cliModelListing(now: Date = new Date()): ModelListing[] {
  return [
    ...cliModelAliases.map((id) => ({ id, label: `${id} (the CLI's latest ${id})` })),
    ...anthropicSdkModels.map((id) => withDeprecation({ id }, now)),
  ];
}

export function withDeprecation(listing: ModelListing, now: Date = new Date(), reported?: { retiresAt?: string | null }): ModelListing {
  const deprecation = deprecationOf(listing.id, now, reported);
  return deprecation ? { ...listing, end_of_life: deprecation.endOfLife } : listing;
}
