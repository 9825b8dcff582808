// Every channel's secrets alike (red-team round 4): a Telegram bot token, an IRC password, a Discord
// token, the mail passwords — write-only, sealed at rest with the app's secret box and bound to their
// channel and field, shown masked with one mask, kept when a form sends the mask back. A value saved
// before sealing (plain text) is read as it is and sealed at the next start (channel-service.ts).
import { maskSecret } from '@/lib/config/mcp-config';
import { open, seal } from '@/lib/store/secret-box';

/** What a form shows for a saved secret (it sends it back to keep it). */
export const MASK = '••••';

const SEALED = /^v\d+:/;
const boundTo = (channelId: string, field: string) => `channel:${channelId}:${field}`;

/** Whether a stored value is sealed (else a plain value saved before sealing). */
export const isSealed = (stored: string) => SEALED.test(stored);

/** The value to store: the form's new secret sealed, or the stored one when it sent the mask or nothing. */
export function keepOrSeal(channelId: string, field: string, given: string, stored: string | undefined): string {
  if (given === '' || given.startsWith(MASK)) return stored ?? '';
  return seal(given, boundTo(channelId, field));
}

/** The secret opened for the adapter ('' when sealed under another key or for another row). */
export function openSecret(channelId: string, field: string, stored: string | undefined): string {
  if (!stored) return '';
  return isSealed(stored) ? (open(stored, boundTo(channelId, field)) ?? '') : stored;
}

/** The stored value sealed (a plain one from before), or as it is. */
export function sealStored(channelId: string, field: string, stored: string | undefined): string {
  return stored && !isSealed(stored) ? seal(stored, boundTo(channelId, field)) : (stored ?? '');
}

/** What an answer shows: the masked secret, the mask alone when it cannot be opened, '' when none. */
export function maskedSecret(channelId: string, field: string, stored: string | undefined): string {
  if (!stored) return '';
  const plain = openSecret(channelId, field, stored);
  return plain ? maskSecret(plain) : MASK;
}

/** A text with the secret scrubbed out (an error a library wrote with the token in its URL). */
export function scrubSecret(text: string, secret: string): string {
  return secret ? text.split(secret).join('•••') : text;
}
