// An email channel's settings (ARCHITECTURE §25): the address mail is sent from, an IMAP account
// read with IDLE from one folder, an SMTP submission account. The passwords (app passwords, as
// Gmail and Fastmail give them) are write-only and sealed at rest like MCP tokens (secret-box),
// each bound to its channel and field, so a value copied into another row does not open.
import { z } from 'zod';
import { withoutNul } from '@/lib/config/text-schema';
import { keepOrSeal, maskedSecret, openSecret } from './channel-secrets';

const host = z.string().trim().min(1).max(255).regex(/^[\w.-]+$/, 'host must be a host name or address');
const password = withoutNul(z.string().max(500, 'password must be at most 500 characters'));
const user = withoutNul(z.string().trim().min(1, 'user is required').max(320));

export const emailConfigSchema = z
  .object({
    /** The agent's own address: mail is sent from it, and mail from it is never read as a message. */
    address: z.string().trim().toLowerCase().email('address must be an email address').max(320),
    imap: z
      .object({ host, port: z.number().int().min(1).max(65_535).default(993), tls: z.boolean().default(true), user, password, folder: withoutNul(z.string().trim().min(1).max(200)).default('INBOX') })
      .strict(),
    smtp: z.object({ host, port: z.number().int().min(1).max(65_535).default(465), tls: z.boolean().default(true), user, password }).strict(),
  })
  .strict();

export type EmailConfigInput = z.infer<typeof emailConfigSchema>;
/** As stored: the passwords sealed; the key that signs cards' codes made once. */
export type EmailConfig = EmailConfigInput & { callback_secret?: string };

const field = (part: 'imap' | 'smtp') => `${part}.password`;

/** The config to store: a password left empty (or masked) keeps the stored one; a new one is sealed. */
export function mergeEmailConfig(channelId: string, input: EmailConfigInput, before: Partial<EmailConfig>, callbackSecret: string): EmailConfig {
  const keep = (part: 'imap' | 'smtp') => keepOrSeal(channelId, field(part), input[part].password, before[part]?.password);
  return { ...input, imap: { ...input.imap, password: keep('imap') }, smtp: { ...input.smtp, password: keep('smtp') }, callback_secret: callbackSecret };
}

/** The stored config with its passwords opened, for the adapter (empty when sealed under another key). */
export function openEmailConfig(channelId: string, stored: EmailConfig): EmailConfig {
  const opened = (part: 'imap' | 'smtp') => openSecret(channelId, field(part), stored[part].password);
  return { ...stored, imap: { ...stored.imap, password: opened('imap') }, smtp: { ...stored.smtp, password: opened('smtp') } };
}

/** As answers show it: each password masked (its last four characters when it opens), the card key never. */
export function publicEmailConfig(channelId: string, stored: EmailConfig): Record<string, unknown> {
  const masked = (part: 'imap' | 'smtp') => maskedSecret(channelId, field(part), stored[part].password);
  return { address: stored.address, imap: { ...stored.imap, password: masked('imap') }, smtp: { ...stored.smtp, password: masked('smtp') } };
}
