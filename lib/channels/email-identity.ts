// Who a mail is from (issue 47, ARCHITECTURE §25): a From header is trivially forged, so a sender
// is only who the headers say when the mail proves it — a DKIM signature that verifies and is
// aligned with the From domain (DMARC's rule; a domain with a DMARC record must pass it). What
// arrived over IMAP has no SMTP session left to check SPF against, so DKIM is the proof; anything
// else is an unverified stranger (a pairing code by reply, never a conversation).
import addressparser from 'nodemailer/lib/addressparser';

/** DNS as mailauth asks it (`dns.promises.resolve`'s shape); tests pass their own records. */
export type MailResolver = (name: string, type: string) => Promise<unknown>;

export interface MailSender {
  /** The From address, lower case ('' when there is none). */
  address: string;
  name: string;
  verified: boolean;
  /** Why it is or is not verified, for the Channels page and the logs. */
  reason: string;
}

/**
 * The proof could not be fetched now (a DNS timeout or SERVFAIL: mailauth's `temperror`): the mail
 * is neither proven nor forged, so it is read again later instead of being refused (RFC 6376 §3.9).
 */
export class MailCheckLater extends Error {}

export async function verifySender(raw: Buffer | string, options: { resolver?: MailResolver } = {}): Promise<MailSender> {
  const { authenticate } = await import('mailauth');
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  const result = await authenticate(bytes, {
    ...(options.resolver && { resolver: options.resolver }),
    disableArc: true,
    disableBimi: true,
    mta: 'agentcsd.local',
  });
  // Exactly one mailbox, read by the same parser mailauth aligns on (it aligns on the first of all
  // it finds): a From of two authors — or two From headers — is nobody verified (RFC 5322 demands a
  // Sender then; DMARC says reject), never the second address (red-team round 4, F1).
  const mailboxes = fromMailboxes(bytes);
  const from = parseFrom(headerLine(bytes, 'from'));
  if (mailboxes.length > 1) return { address: '', name: from.name, verified: false, reason: `the From holds ${mailboxes.length} mailboxes: a mail must come from one author` };
  if (!from.address || mailboxes.length === 0) return { ...from, verified: false, reason: 'the mail has no From address' };
  if (mailboxes[0]!.toLowerCase() !== from.address) return { ...from, verified: false, reason: 'the From address cannot be read one way only' };
  const domain = from.address.split('@')[1] ?? '';
  const aligned = (result.dkim?.results ?? []).filter((row: { status: { result: string; aligned?: string | false } }) => row.status.result === 'pass' && row.status.aligned);
  const dmarc = result.dmarc && typeof result.dmarc === 'object' ? (result.dmarc as { status?: { result?: string } }).status?.result : undefined;
  if (dmarc === 'fail') return { ...from, verified: false, reason: `${domain}'s DMARC policy fails for this mail` };
  if (aligned.length === 0) {
    const unsure = (result.dkim?.results ?? []).some((row: { status: { result: string } }) => row.status.result === 'temperror') || dmarc === 'temperror';
    if (unsure) throw new MailCheckLater(`${domain}'s signature could not be checked now (DNS did not answer)`);
    return { ...from, verified: false, reason: `no DKIM signature of ${domain} verifies` };
  }
  return { ...from, verified: true, reason: `signed by ${domain} (DKIM${dmarc === 'pass' ? ', DMARC pass' : ''})` };
}

/** The first header of that name in a raw message, unfolded ('' when absent). */
export function headerLine(raw: Buffer, name: string): string {
  const head = raw.subarray(0, Math.max(0, raw.indexOf('\r\n\r\n') === -1 ? raw.indexOf('\n\n') : raw.indexOf('\r\n\r\n'))).toString('utf8');
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
  return unfolded.find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`)) ?? '';
}

/** Every mailbox of every From header (groups flattened), as mailauth's own parser reads them. */
export function fromMailboxes(raw: Buffer): string[] {
  const head = raw.subarray(0, Math.max(0, raw.indexOf('\r\n\r\n') === -1 ? raw.indexOf('\n\n') : raw.indexOf('\r\n\r\n'))).toString('utf8');
  const lines = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/).filter((line) => /^from\s*:/i.test(line));
  return lines.flatMap((line) => addressparser(line.slice(line.indexOf(':') + 1).trim(), { flatten: true }).flatMap((entry) => ('address' in entry && entry.address ? [entry.address] : [])));
}

/** The address and display name of a From header line. */
export function parseFrom(line: string): { address: string; name: string } {
  const value = line.replace(/^from:\s*/i, '').replace(/\r?\n[ \t]+/g, ' ').trim();
  const angle = /^(.*)<([^<>\s]+@[^<>\s]+)>\s*$/.exec(value);
  if (angle) return { address: angle[2]!.toLowerCase(), name: angle[1]!.trim().replace(/^"|"$/g, '') };
  const bare = /^([^\s<>@]+@[^\s<>@]+)$/.exec(value);
  return bare ? { address: bare[1]!.toLowerCase(), name: '' } : { address: '', name: value.slice(0, 100) };
}
