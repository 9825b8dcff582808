// A Slack app's settings (issue 62): its app-level token (`xapp-…`, for the Socket Mode
// connection) and bot token (`xoxb-…`, for the Web API) — both write-only, sealed at rest like every
// channel's secrets and bound to the channel — and the Web API's address (Slack's own unless a test
// points it at a fake). Channels are joined from Slack itself (`/agentcsd join <persona>`).
import { z } from 'zod';
import { withoutNul } from '@/lib/config/text-schema';
import { keepOrSeal, MASK, maskedSecret, openSecret } from './channel-secrets';

// A token that starts right but is too short says so (issue 75 §9: a pasted half read "must start xapp-").
const token = (prefix: string, where: string) =>
  withoutNul(z.string().trim().max(300, 'a token is at most 300 characters'))
    .refine((value) => value === '' || value.startsWith(MASK) || value.startsWith(`${prefix}-`), `must be a token starting ${prefix}- (${where})`)
    .refine((value) => !value.startsWith(`${prefix}-`) || new RegExp(`^${prefix}-[\\w-]{10,}$`).test(value), `looks cut short or has a stray character: copy the whole ${prefix}-… token again (${where})`);

export const slackConfigSchema = z
  .object({
    /** Basic Information › App-Level Tokens, with the scope connections:write. */
    app_token: token('xapp', 'Basic Information › App-Level Tokens'),
    /** OAuth & Permissions › Bot User OAuth Token. */
    bot_token: token('xoxb', 'OAuth & Permissions › Bot User OAuth Token'),
    api_root: z.string().url().refine((value) => value.endsWith('/'), 'api_root ends with / (https://slack.com/api/)').default('https://slack.com/api/'),
  })
  .strict();

export type SlackConfigInput = z.infer<typeof slackConfigSchema>;
export type SlackConfig = SlackConfigInput & { callback_secret?: string };

export function mergeSlackConfig(channelId: string, input: SlackConfigInput, before: Partial<SlackConfig>, callbackSecret: string): SlackConfig {
  return {
    ...input,
    app_token: keepOrSeal(channelId, 'app_token', input.app_token, before.app_token),
    bot_token: keepOrSeal(channelId, 'bot_token', input.bot_token, before.bot_token),
    callback_secret: callbackSecret,
  };
}

/** The tokens opened for the adapter ('' when sealed under another key). */
export function openSlackConfig(channelId: string, stored: SlackConfig): SlackConfig {
  return { ...stored, app_token: openSecret(channelId, 'app_token', stored.app_token), bot_token: openSecret(channelId, 'bot_token', stored.bot_token) };
}

export function publicSlackConfig(channelId: string, stored: SlackConfig): Record<string, unknown> {
  return { app_token: maskedSecret(channelId, 'app_token', stored.app_token), bot_token: maskedSecret(channelId, 'bot_token', stored.bot_token), api_root: stored.api_root };
}
