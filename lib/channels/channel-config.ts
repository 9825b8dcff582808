// A channel's settings as the Channels page sends them and the REST answers show them: secrets
// (the bot token, the IRC password) are write-only and sealed at rest like every channel's
// (channel-secrets.ts) — an answer shows `••••` and the last four characters, and a save that
// leaves them empty keeps the stored one.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { withoutNul } from '@/lib/config/text-schema';
import type { ChannelRecord } from '@/lib/store/channels-repository';
import { emailConfigSchema, mergeEmailConfig, publicEmailConfig, type EmailConfig } from './email-config';
import { discordConfigSchema, mergeDiscordConfig, publicDiscordConfig, type DiscordConfig } from './discord-config';
import { mergeSlackConfig, publicSlackConfig, slackConfigSchema, type SlackConfig } from './slack-config';
import { mergeWhatsAppConfig, publicWhatsAppConfig, whatsappConfigSchema, type WhatsAppConfig } from './whatsapp-config';
import { keepOrSeal, MASK, maskedSecret, openSecret, sealStored } from './channel-secrets';

export { MASK };

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
  z.object({ id: z.string().uuid().optional(), kind: z.literal('slack'), name: z.string().trim().min(1).max(80), enabled: z.boolean().default(true), config: slackConfigSchema }).strict(),
  z.object({ id: z.string().uuid().optional(), kind: z.literal('whatsapp'), name: z.string().trim().min(1).max(80), enabled: z.boolean().default(true), config: whatsappConfigSchema }).strict(),
]);
export type ChannelInput = z.infer<typeof channelInputSchema>;


/** The config to store: write-only secrets kept when the form left them empty or masked; the callback key made once. */
export function mergeChannelConfig(input: ChannelInput & { id: string }, previous: ChannelRecord | null): TelegramConfig | IrcConfig | EmailConfig | DiscordConfig | SlackConfig | WhatsAppConfig {
  const before = previous?.kind === input.kind ? (previous.config as Record<string, string | undefined>) : {};
  const callbackSecret = before.callback_secret ?? randomBytes(32).toString('base64url');
  if (input.kind === 'telegram') return { ...input.config, token: keepOrSeal(input.id, 'token', input.config.token, before.token), callback_secret: callbackSecret };
  if (input.kind === 'email') return mergeEmailConfig(input.id, input.config, before as Partial<EmailConfig>, callbackSecret);
  if (input.kind === 'discord') return mergeDiscordConfig(input.id, input.config, before as Partial<DiscordConfig>, callbackSecret);
  if (input.kind === 'slack') return mergeSlackConfig(input.id, input.config, before as Partial<SlackConfig>, callbackSecret);
  if (input.kind === 'whatsapp') return mergeWhatsAppConfig(input.id, input.config, before as Partial<WhatsAppConfig>, callbackSecret);
  return { ...input.config, password: keepOrSeal(input.id, 'password', input.config.password, before.password) };
}

/** A channel's config with its secrets opened, for the adapter. */
export function openChannelConfig<Config extends TelegramConfig | IrcConfig>(channelId: string, kind: 'telegram' | 'irc', stored: Config): Config {
  return kind === 'telegram' ? { ...stored, token: openSecret(channelId, 'token', (stored as TelegramConfig).token) } : { ...stored, password: openSecret(channelId, 'password', (stored as IrcConfig).password) };
}

/** A channel's config saved before secrets were sealed, with its secrets sealed now (null: nothing to seal). */
export function sealedLegacyConfig(channel: Pick<ChannelRecord, 'id' | 'kind' | 'config'>): Record<string, unknown> | null {
  if (channel.kind !== 'telegram' && channel.kind !== 'irc') return null;
  const config = channel.config as Record<string, string | undefined>;
  const field = channel.kind === 'telegram' ? 'token' : 'password';
  const sealed = sealStored(channel.id, field, config[field]);
  return sealed === (config[field] ?? '') ? null : { ...config, [field]: sealed };
}

/** The config as answers show it: secrets masked, the callback key never. */
export function publicChannelConfig(channel: ChannelRecord): Record<string, unknown> {
  const config = { ...(channel.config as Record<string, unknown>) };
  if (channel.kind === 'email') return publicEmailConfig(channel.id, channel.config as EmailConfig);
  if (channel.kind === 'discord') return publicDiscordConfig(channel.id, channel.config as DiscordConfig);
  if (channel.kind === 'slack') return publicSlackConfig(channel.id, channel.config as SlackConfig);
  if (channel.kind === 'whatsapp') return publicWhatsAppConfig(channel.id, channel.config as WhatsAppConfig);
  if (channel.kind === 'telegram') {
    config.token = maskedSecret(channel.id, 'token', config.token as string | undefined);
    delete config.callback_secret;
  } else config.password = maskedSecret(channel.id, 'password', config.password as string | undefined);
  return config;
}

export const channelIdSchema = z.object({ id: z.string().uuid('the channel id is a UUID') }).strict();

/** A channel as GET /api/channels shows it: secrets masked, its live state and counts. */
export function channelJson(channel: ChannelRecord, status: { state: unknown; counters: unknown; outbox: unknown; waiting?: string | null }) {
  return {
    id: channel.id,
    kind: channel.kind,
    name: channel.name,
    enabled: channel.enabled,
    config: publicChannelConfig(channel),
    state: status.state,
    counters: status.counters,
    outbox: status.outbox,
    waiting: status.waiting ?? null,
    created_at: channel.createdAt.toISOString(),
    updated_at: channel.updatedAt.toISOString(),
  };
}
