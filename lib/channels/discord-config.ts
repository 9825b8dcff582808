// A Discord bot's settings (ARCHITECTURE §25): its token — write-only, sealed at rest like the mail
// passwords (secret-box, bound to the channel) — the guild channels it reads (mention-gated, as
// groups), and the API's address (Discord's own unless a test points it at a fake).
import { z } from 'zod';
import { withoutNul } from '@/lib/config/text-schema';
import { keepOrSeal, MASK, maskedSecret, openSecret } from './channel-secrets';

const snowflake = z.string().regex(/^\d{15,21}$/, 'a Discord id is 15 to 21 digits (Developer Mode › Copy Channel ID)');

export const discordConfigSchema = z
  .object({
    /** From the Developer Portal › the application › Bot › Reset Token. */
    token: withoutNul(z.string().trim().max(200, 'token must be at most 200 characters')).refine((value) => value === '' || value.startsWith(MASK) || /^[\w-]{20,}\.[\w-]{4,}\.[\w-]{20,}$/.test(value), 'token must look like a bot token (three dot-separated parts)'),
    /** Guild text channels the bot reads (by id); direct messages are always read. */
    guild_channels: z.array(snowflake).max(50).default([]),
    api_root: z.string().url().default('https://discord.com/api'),
  })
  .strict();

export type DiscordConfigInput = z.infer<typeof discordConfigSchema>;
export type DiscordConfig = DiscordConfigInput & { callback_secret?: string };

export function mergeDiscordConfig(channelId: string, input: DiscordConfigInput, before: Partial<DiscordConfig>, callbackSecret: string): DiscordConfig {
  return { ...input, token: keepOrSeal(channelId, 'token', input.token, before.token), callback_secret: callbackSecret };
}

/** The token opened for the adapter ('' when sealed under another key). */
export function openDiscordConfig(channelId: string, stored: DiscordConfig): DiscordConfig {
  return { ...stored, token: openSecret(channelId, 'token', stored.token) };
}

export function publicDiscordConfig(channelId: string, stored: DiscordConfig): Record<string, unknown> {
  return { token: maskedSecret(channelId, 'token', stored.token), guild_channels: stored.guild_channels, api_root: stored.api_root };
}
