// A channel's settings as the Channels page sends them and the REST answers show them: secrets
// (the bot token, the IRC password) are write-only — an answer shows `••••` and the last four
// characters, and a save that leaves them empty keeps the stored one.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { withoutNul } from '@/lib/config/text-schema';
import { maskSecret } from '@/lib/config/mcp-config';
import type { ChannelRecord } from '@/lib/store/channels-repository';
import { emailConfigSchema, mergeEmailConfig, publicEmailConfig, type EmailConfig } from './email-config';
import { discordConfigSchema, mergeDiscordConfig, publicDiscordConfig, type DiscordConfig } from './discord-config';

export const MASK = '••••';

const secret = (what: string) => withoutNul(z.string().trim().max(500, `${what} must be at most 500 characters`));

export const telegramConfigSchema = z
  .object({
    /** From @BotFather: 123456:ABC-… */
    token: secret('token').refine((value) => value === '' || value.startsWith(MASK) || /^\d{3,20}:[\w-]{20,}$/.test(value), 'token must look like 123456789:AA… (from @BotFather)'),
    /** The Bot API's address: https://api.telegram.org unless a local Bot API server is used. */
    api_root: z.string().url().default('https://api.telegram.org'),
  })
  .strict();

const ircChannelName = z.string().regex(/^[#&][^\s,\x00-\x1f]{1,49}$/, 'IRC channels start with # or & and have no spaces or commas');

export const ircConfigSchema = z
  .object({
    host: z.string().trim().min(1).max(255).regex(/^[\w.-]+$/, 'host must be a host name or address'),
    port: z.number().int().min(1).max(65_535).default(6697),
    tls: z.boolean().default(true),
    nick: z.string().regex(/^[A-Za-z[\]\\`_^{|}][\w[\]\\`^{|}-]{0,29}$/, 'nick must be a valid IRC nick'),
    /** SASL PLAIN account (or NickServ's), with the password below. */
    account: z.string().trim().max(100).default(''),
    password: secret('password'),
    channels: z.array(ircChannelName).max(20).default([]),
  })
  .strict();

export type TelegramConfig = z.infer<typeof telegramConfigSchema> & { callback_secret?: string };
export type IrcConfig = z.infer<typeof ircConfigSchema>;

export const channelInputSchema = z.discriminatedUnion('kind', [
  z.object({ id: z.string().uuid().optional(), kind: z.literal('telegram'), name: z.string().trim().min(1).max(80), enabled: z.boolean().default(true), config: telegramConfigSchema }).strict(),
  z.object({ id: z.string().uuid().optional(), kind: z.literal('irc'), name: z.string().trim().min(1).max(80), enabled: z.boolean().default(true), config: ircConfigSchema }).strict(),
  z.object({ id: z.string().uuid().optional(), kind: z.literal('email'), name: z.string().trim().min(1).max(80), enabled: z.boolean().default(true), config: emailConfigSchema }).strict(),
  z.object({ id: z.string().uuid().optional(), kind: z.literal('discord'), name: z.string().trim().min(1).max(80), enabled: z.boolean().default(true), config: discordConfigSchema }).strict(),
]);
export type ChannelInput = z.infer<typeof channelInputSchema>;

/** An answer's view of a stored secret: empty when none is set. */
function masked(value: unknown): string {
  return typeof value === 'string' && value ? maskSecret(value) : '';
}

/** A saved value that shows as masked: the form sent it back untouched. */
function keepOrReplace(next: string, previous: string | undefined): string {
  return next === '' || next.startsWith(MASK) ? (previous ?? '') : next;
}

/** The config to store: write-only secrets kept when the form left them empty or masked; the callback key made once. */
export function mergeChannelConfig(input: ChannelInput & { id: string }, previous: ChannelRecord | null): TelegramConfig | IrcConfig | EmailConfig | DiscordConfig {
  const before = previous?.kind === input.kind ? (previous.config as Record<string, string | undefined>) : {};
  const callbackSecret = before.callback_secret ?? randomBytes(32).toString('base64url');
  if (input.kind === 'telegram') return { ...input.config, token: keepOrReplace(input.config.token, before.token), callback_secret: callbackSecret };
  if (input.kind === 'email') return mergeEmailConfig(input.id, input.config, before as Partial<EmailConfig>, callbackSecret);
  if (input.kind === 'discord') return mergeDiscordConfig(input.id, input.config, before as Partial<DiscordConfig>, callbackSecret);
  return { ...input.config, password: keepOrReplace(input.config.password, before.password) };
}

/** The config as answers show it: secrets masked, the callback key never. */
export function publicChannelConfig(channel: ChannelRecord): Record<string, unknown> {
  const config = { ...(channel.config as Record<string, unknown>) };
  if (channel.kind === 'email') return publicEmailConfig(channel.id, channel.config as EmailConfig);
  if (channel.kind === 'discord') return publicDiscordConfig(channel.id, channel.config as DiscordConfig);
  if (channel.kind === 'telegram') {
    config.token = masked(config.token);
    delete config.callback_secret;
  } else config.password = masked(config.password);
  return config;
}

export const channelIdSchema = z.object({ id: z.string().uuid('the channel id is a UUID') }).strict();

/** A channel as GET /api/channels shows it: secrets masked, its live state and counts. */
export function channelJson(channel: ChannelRecord, status: { state: unknown; counters: unknown; outbox: unknown }) {
  return {
    id: channel.id,
    kind: channel.kind,
    name: channel.name,
    enabled: channel.enabled,
    config: publicChannelConfig(channel),
    ...status,
    created_at: channel.createdAt.toISOString(),
    updated_at: channel.updatedAt.toISOString(),
  };
}
