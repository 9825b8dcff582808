// What the email channel reads out of a mail (issue 47): the reply's own words (the quoted
// conversation below them cut off), a single-line command (`approve <code>`, `status`…) as the
// chat channels' `!command`, the text the mind gets — who wrote, the subject and the Message-ID
// (which names the mail, so a mail handed over twice after a crash is recognised), the words — and
// the attached files, which the inbound keeps in the session through the upload checks. Everything in it is the sender's
// or a forwarded mail's words: untrusted content (§20).
import type { ParsedMail } from 'mailparser';
import type { InboundMessage } from './channel-types';
import { verifySender, type MailResolver } from './email-identity';

const COMMANDS = /^[/!]?(approve|always|deny|status|pause|resume|stop|new|answer)(\s+[\s\S]*)?$/i;
export const MAIL_TEXT_LIMIT = 16_000;

/** The words above the quoted conversation: a trailing block of `>` lines and its "On … wrote:" line go. */
export function freshText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let end = lines.length;
  while (end > 0 && /^\s*$/.test(lines[end - 1]!)) end--;
  let quoted = false;
  while (end > 0 && (/^\s*>/.test(lines[end - 1]!) || (quoted && /^\s*$/.test(lines[end - 1]!)))) {
    quoted = true;
    end--;
  }
  if (quoted && end > 0 && /wrote:\s*$/i.test(lines[end - 1]!)) end--;
  const kept = lines.slice(0, end).join('\n').trim();
  return kept || text.trim();
}

/** The reply as a channel command (`!approve 12-ABCD-EFGH`), or null when it is a message. */
export function mailCommand(fresh: string): string | null {
  const line = fresh.trim();
  if (line.includes('\n') || line.length > 2_000) return null;
  const match = COMMANDS.exec(line);
  return match ? `!${match[1]!.toLowerCase()}${match[2] ?? ''}` : null;
}

export interface MailFacts {
  address: string;
  name: string;
  subject: string;
  messageId: string;
  inReplyTo: string | null;
  references: string[];
}

export function mailFacts(parsed: ParsedMail, from: { address: string; name: string }): MailFacts {
  const references = typeof parsed.references === 'string' ? [parsed.references] : (parsed.references ?? []);
  return {
    address: from.address,
    name: from.name,
    subject: (parsed.subject ?? '').replace(/[\r\n]+/g, ' ').trim().slice(0, 300),
    messageId: parsed.messageId ?? '',
    inReplyTo: parsed.inReplyTo ?? null,
    references: references.slice(-20),
  };
}

/** The mail as the mind reads it (a command stays a command). */
export function mailText(parsed: ParsedMail, facts: MailFacts): string {
  const body = freshText(parsed.text ?? (typeof parsed.html === 'string' ? parsed.html.replace(/<[^>]*>/g, ' ') : ''));
  const command = mailCommand(body);
  if (command) return command;
  const who = facts.name ? `${facts.name} <${facts.address}>` : facts.address;
  const head = `✉ Mail from ${who}${facts.subject ? `, subject "${facts.subject}"` : ''}${facts.messageId ? ` (${facts.messageId})` : ''}:`;
  const words = body.length > MAIL_TEXT_LIMIT ? `${body.slice(0, MAIL_TEXT_LIMIT)}\n… (${body.length - MAIL_TEXT_LIMIT} more characters not shown)` : body;
  return [head, words].filter(Boolean).join('\n\n');
}

/** How a mail is named on a card and in the prompt. */
export function describeMail(facts: Pick<MailFacts, 'address' | 'subject'>): string {
  return `the mail from ${facts.address}${facts.subject ? ` ("${facts.subject.slice(0, 80)}")` : ''}`;
}

/**
 * A raw mail as the channel's inbound reads it, or null for one that is never a message (no From,
 * the agent's own, an automatic report: no loops with autoresponders). `facts` thread the reply.
 */
export async function readMail(raw: Buffer, options: { ownAddress: string; resolver?: MailResolver }): Promise<{ message: InboundMessage; facts: MailFacts; verified: boolean } | null> {
  const { simpleParser } = await import('mailparser');
  const [sender, parsed] = await Promise.all([verifySender(raw, options.resolver ? { resolver: options.resolver } : {}), simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true })]);
  if (!sender.address || sender.address === options.ownAddress) return null;
  const auto = parsed.headers.get('auto-submitted');
  if (auto && String(auto).toLowerCase() !== 'no') return null;
  const facts = mailFacts(parsed, sender);
  const text = mailText(parsed, facts);
  const command = text.startsWith('!');
  // Attached files (not the images an HTML body shows inline): kept by the inbound through the upload checks.
  const attachments = (parsed.attachments ?? []).filter((attachment) => attachment.contentDisposition !== 'inline').map((attachment) => ({ name: attachment.filename || 'attachment', claimedType: attachment.contentType ?? null, bytes: attachment.content }));
  const message: InboundMessage = {
    sender: `email:${sender.address}`,
    senderName: sender.name ? `${sender.name} <${sender.address}>` : sender.address,
    address: sender.address,
    text,
    ...(facts.inReplyTo && { replyTo: facts.inReplyTo }),
    ...(!sender.verified && { unverified: sender.reason }),
    untrustedSource: describeMail(facts),
    mayRepeat: Boolean(facts.messageId),
    ...(!command && attachments.length > 0 && { files: attachments }),
  };
  return { message, facts, verified: sender.verified };
}
