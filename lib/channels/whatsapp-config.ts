// A WhatsApp Business number on Meta's Cloud API (issue 77): the phone number's id, a permanent
// access token (a System User's) and the app secret that signs Meta's webhook deliveries — both
// write-only, sealed at rest like every channel's secrets — the verify token Meta's webhook setup
// echoes (made here once, shown so the owner can paste it), the Graph API's address (Meta's unless
// a test points it at a fake) and, for words sent outside WhatsApp's 24-hour window, an approved
// template with one body parameter.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { withoutNul } from '@/lib/config/text-schema';
import { keepOrSeal, MASK, maskedSecret, openSecret } from './channel-secrets';

/** The Graph API version every call names (Meta keeps one for two years; docs/channels.md says when to move). */
export const WHATSAPP_GRAPH_VERSION = 'v26.0';

const secret = (what: string, shape: RegExp, hint: string) =>
  withoutNul(z.string().trim().max(1_000, `${what} is at most 1,000 characters`)).refine((value) => value === '' || value.startsWith(MASK) || shape.test(value), hint);

export const whatsappConfigSchema = z
  .object({
    /** WhatsApp › API Setup › Phone number ID (not the phone number itself). */
    phone_number_id: z.string().trim().regex(/^\d{5,25}$/, 'the phone number id is the digits WhatsApp › API Setup shows as “Phone number ID” (not the number itself)'),
    /** A System User's permanent token with whatsapp_business_messaging (Business Settings › System users). */
    access_token: secret('the access token', /^[A-Za-z0-9_-]{20,}$/, 'the access token looks cut short or has a stray character: copy the whole EAA… token again'),
    /** App settings › Basic › App secret: it signs every delivery (X-Hub-Signature-256). */
    app_secret: secret('the app secret', /^[A-Za-z0-9]{16,64}$/, 'the app secret is the 32 letters and digits under App settings › Basic › App secret'),
    /** What Meta's webhook setup sends back to prove the address is ours; empty: one is made. */
    verify_token: z.string().trim().max(200).regex(/^[\w.~-]*$/, 'the verify token is letters, digits and . _ ~ - only').default(''),
    api_root: z.string().url().default('https://graph.facebook.com'),
    /** An approved template (one {{1}} in its body) for words outside the 24-hour window; null: they wait until the person writes. */
    template: z
      .object({
        name: z.string().trim().regex(/^[a-z0-9_]{1,512}$/, 'a template name is lower-case letters, digits and _ (as WhatsApp Manager shows it)'),
        language: z.string().trim().regex(/^[a-z]{2,3}(?:_[A-Z]{2})?$/, 'the template language is its code, such as en or en_US'),
      })
      .strict()
      .nullable()
      .default(null),
  })
  .strict();

export type WhatsAppConfigInput = z.infer<typeof whatsappConfigSchema>;
export type WhatsAppConfig = WhatsAppConfigInput & { callback_secret?: string };

export function mergeWhatsAppConfig(channelId: string, input: WhatsAppConfigInput, before: Partial<WhatsAppConfig>, callbackSecret: string): WhatsAppConfig {
  return {
    ...input,
    access_token: keepOrSeal(channelId, 'access_token', input.access_token, before.access_token),
    app_secret: keepOrSeal(channelId, 'app_secret', input.app_secret, before.app_secret),
    verify_token: input.verify_token || before.verify_token || randomBytes(18).toString('base64url'),
    callback_secret: callbackSecret,
  };
}

/** The secrets opened for the adapter ('' when sealed under another key). */
export function openWhatsAppConfig(channelId: string, stored: WhatsAppConfig): WhatsAppConfig {
  return { ...stored, access_token: openSecret(channelId, 'access_token', stored.access_token), app_secret: openSecret(channelId, 'app_secret', stored.app_secret) };
}

/** As answers show it: the secrets masked, the verify token and the webhook's path shown (the owner pastes both into Meta's form). */
export function publicWhatsAppConfig(channelId: string, stored: WhatsAppConfig): Record<string, unknown> {
  return {
    phone_number_id: stored.phone_number_id,
    access_token: maskedSecret(channelId, 'access_token', stored.access_token),
    app_secret: maskedSecret(channelId, 'app_secret', stored.app_secret),
    verify_token: stored.verify_token,
    api_root: stored.api_root,
    template: stored.template,
    webhook_path: whatsappWebhookPath(channelId),
  };
}

export function whatsappWebhookPath(channelId: string): string {
  return `/api/channels/${channelId}/whatsapp`;
}
