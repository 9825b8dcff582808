// What Meta's webhook sends a WhatsApp number (issue 77 §1), read strictly in order: the signature
// first — `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the app secret>`,
// compared in constant time — and only then the JSON. The verification handshake (`hub.mode`,
// `hub.verify_token`, `hub.challenge`) answers the challenge to our verify token only. Of a
// delivery only the changes for our phone number's `messages` field count: people's messages (text,
// a button pressed, media) and the statuses of what we sent.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** Whether Meta signed these bytes with this app secret. */
export function signedByMeta(raw: Uint8Array, header: string | null, appSecret: string): boolean {
  if (!appSecret || !header) return false;
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match) return false;
  const expected = createHmac('sha256', appSecret).update(raw).digest();
  return timingSafeEqual(Buffer.from(match[1]!, 'hex'), expected);
}

/** The handshake's answer: the challenge (200) only for `subscribe` with our verify token. */
export function verificationAnswer(params: URLSearchParams, verifyToken: string): { status: number; body: string } {
  const given = params.get('hub.verify_token') ?? '';
  const same = given.length === verifyToken.length && verifyToken.length > 0 && timingSafeEqual(Buffer.from(given), Buffer.from(verifyToken));
  if (params.get('hub.mode') !== 'subscribe' || !same) return { status: 403, body: 'The verify token does not match this channel (Settings › Channels shows it)' };
  const challenge = params.get('hub.challenge') ?? '';
  return /^[\w.~-]{1,200}$/.test(challenge) ? { status: 200, body: challenge } : { status: 400, body: 'hub.challenge is missing' };
}

const media = z.object({ id: z.string().min(1).max(200), mime_type: z.string().max(200).optional(), caption: z.string().max(4_096).optional(), filename: z.string().max(500).optional(), voice: z.boolean().optional(), file_size: z.number().optional() }).passthrough();

const messageSchema = z
  .object({
    id: z.string().min(1).max(200),
    from: z.string().regex(/^\d{5,20}$/),
    timestamp: z.string().regex(/^\d{1,12}$/),
    type: z.string().max(40),
    context: z.object({ id: z.string().max(200).optional() }).passthrough().optional(),
    text: z.object({ body: z.string().max(65_536) }).passthrough().optional(),
    button: z.object({ payload: z.string().max(1_000).optional(), text: z.string().max(1_000).optional() }).passthrough().optional(),
    interactive: z.object({ type: z.string(), button_reply: z.object({ id: z.string().max(256), title: z.string().max(100) }).passthrough().optional() }).passthrough().optional(),
    image: media.optional(),
    document: media.optional(),
    audio: media.optional(),
    video: media.optional(),
    sticker: media.optional(),
  })
  .passthrough();

const statusSchema = z
  .object({
    id: z.string().min(1).max(200),
    status: z.string().max(40),
    recipient_id: z.string().max(40).optional(),
    timestamp: z.string().optional(),
    errors: z.array(z.object({ code: z.number().optional(), title: z.string().max(500).optional(), message: z.string().max(1_000).optional(), error_data: z.object({ details: z.string().max(1_000).optional() }).passthrough().optional() }).passthrough()).optional(),
  })
  .passthrough();

const deliverySchema = z
  .object({
    object: z.string(),
    entry: z.array(
      z
        .object({
          changes: z.array(
            z
              .object({
                field: z.string(),
                value: z
                  .object({
                    metadata: z.object({ phone_number_id: z.string() }).passthrough().optional(),
                    contacts: z.array(z.object({ wa_id: z.string().optional(), profile: z.object({ name: z.string().max(200).optional() }).passthrough().optional() }).passthrough()).optional(),
                    messages: z.array(messageSchema).optional(),
                    statuses: z.array(statusSchema).optional(),
                  })
                  .passthrough(),
              })
              .passthrough(),
          ),
        })
        .passthrough(),
    ),
  })
  .passthrough();

export type WhatsAppMessage = z.infer<typeof messageSchema> & { senderName: string };
export type WhatsAppStatus = z.infer<typeof statusSchema>;

/** A signed delivery's messages and statuses for this phone number; null when it is not a delivery at all. */
export function readDelivery(raw: Uint8Array, phoneNumberId: string): { messages: WhatsAppMessage[]; statuses: WhatsAppStatus[] } | null {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch {
    return null;
  }
  const parsed = deliverySchema.safeParse(json);
  if (!parsed.success || parsed.data.object !== 'whatsapp_business_account') return null;
  const messages: WhatsAppMessage[] = [];
  const statuses: WhatsAppStatus[] = [];
  for (const entry of parsed.data.entry) {
    for (const change of entry.changes) {
      if (change.field !== 'messages' || change.value.metadata?.phone_number_id !== phoneNumberId) continue;
      const names = new Map((change.value.contacts ?? []).map((contact) => [contact.wa_id ?? '', contact.profile?.name ?? '']));
      for (const message of change.value.messages ?? []) messages.push({ ...message, senderName: names.get(message.from) || `+${message.from}` });
      statuses.push(...(change.value.statuses ?? []));
    }
  }
  return { messages, statuses };
}

/** The sender as pairing binds it: their number, E.164. */
export const whatsappSender = (waId: string) => `wa:+${waId}`;

/** What a message says as text: its words, a quick-reply's words, a media caption. */
export function messageText(message: WhatsAppMessage): string {
  if (message.text) return message.text.body;
  if (message.button) return message.button.text ?? message.button.payload ?? '';
  const attached = message.image ?? message.document ?? message.video;
  return attached?.caption ?? '';
}

/** A card's button pressed under our interactive message: its id (signed callback data). */
export function pressedButton(message: WhatsAppMessage): string | null {
  return message.interactive?.type === 'button_reply' ? (message.interactive.button_reply?.id ?? null) : null;
}
