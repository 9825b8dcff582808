// A card's buttons on a chat app carry signed callback data (issue 28 §1): a forged or tampered
// button is refused. Apart from the Telegram client, so deciding a card does not load grammY.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type CardDecision = 'approve' | 'deny' | 'always';

/** `c:<outbox id>:<a|d|s>:<signature>` — under Telegram's 64 bytes; the signature binds all three to this channel. */
export function signCallback(secret: string, channelId: string, outboxId: number, decision: CardDecision): string {
  const letter = { approve: 'a', deny: 'd', always: 's' }[decision];
  const signature = createHmac('sha256', secret).update(`${channelId}:${outboxId}:${letter}`).digest('base64url').slice(0, 22);
  return `c:${outboxId}:${letter}:${signature}`;
}

export function verifyCallback(secret: string, channelId: string, data: string): { outboxId: number; decision: CardDecision } | null {
  const match = /^c:(\d{1,12}):([ads]):([\w-]{22})$/.exec(data);
  if (!match) return null;
  const decision = ({ a: 'approve', d: 'deny', s: 'always' } as const)[match[2] as 'a' | 'd' | 's'];
  const expected = signCallback(secret, channelId, Number(match[1]), decision);
  const given = Buffer.from(data);
  if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected))) return null;
  return { outboxId: Number(match[1]), decision };
}

const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/**
 * A card's code by mail (issue 47): `<outbox id>-XXXX-XXXX`, eight letters of an HMAC over the
 * channel and the card — the reply `approve <code>` or `deny <code>` names it. It decides once:
 * a card already decided refuses a second decision.
 */
export function mailCardCode(secret: string, channelId: string, outboxId: number): string {
  const digest = createHmac('sha256', secret).update(`${channelId}:${outboxId}:mail`).digest();
  const letters = Array.from(digest.subarray(0, 8), (byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]).join('');
  return `${outboxId}-${letters.slice(0, 4)}-${letters.slice(4)}`;
}

/** The card a mail code names, or null for a code this channel did not give. */
export function verifyMailCardCode(secret: string, channelId: string, code: string): number | null {
  const match = /^(\d{1,12})-([A-Z0-9]{4})-?([A-Z0-9]{4})$/.exec(code.trim().toUpperCase());
  if (!match) return null;
  const expected = Buffer.from(mailCardCode(secret, channelId, Number(match[1])));
  const given = Buffer.from(`${match[1]}-${match[2]}-${match[3]}`);
  return given.length === expected.length && timingSafeEqual(given, expected) ? Number(match[1]) : null;
}
