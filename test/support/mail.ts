// Mail for the email channel's tests (issue 47): messages composed as a mail client would
// (nodemailer's MailComposer), DKIM-signed with a key whose public half the test's DNS serves.
// What the app sends is kept by smtp-receiver.ts.
import { generateKeyPairSync } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { dkimSign } from 'mailauth/lib/dkim/sign';
import type { FakeDns } from './fake-dns';

const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKey = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicKey = pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

/** The domain's DKIM key (selector `mail`) and a DMARC policy, served by the test's DNS. */
export function publishDomain(dns: FakeDns, domain: string): void {
  dns.setTxt(`mail._domainkey.${domain}`, `v=DKIM1; k=rsa; p=${publicKey}`);
  dns.setTxt(`_dmarc.${domain}`, 'v=DMARC1; p=reject');
}

/** The same records as a resolver function (mailauth's shape), for tests that need no DNS server. */
export function signingResolver(domains: string[]): (name: string, type: string) => Promise<string[][]> {
  return async (name, type) => {
    const domain = domains.find((candidate) => name === `mail._domainkey.${candidate}`);
    if (type === 'TXT' && domain) return [[`v=DKIM1; k=rsa; p=${publicKey}`]];
    throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
}

export interface MailInput {
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  attachments?: { filename: string; content: Buffer; contentType?: string }[];
  /** The domain whose key signs it; none: unsigned. */
  signedBy?: string;
}

let counter = 0;

export async function composeMail(input: MailInput): Promise<string> {
  const { signedBy, ...mail } = input;
  const domain = /@([^>]+)>?$/.exec(input.from)![1]!;
  const raw = await new MailComposer({ ...mail, messageId: input.messageId ?? `<test.${Date.now()}.${++counter}@${domain}>`, date: new Date() }).compile().build();
  if (!signedBy) return raw.toString();
  const { signatures } = await dkimSign(raw, { canonicalization: 'relaxed/relaxed', algorithm: 'rsa-sha256', signatureData: [{ signingDomain: signedBy, selector: 'mail', privateKey }] });
  return signatures + raw.toString();
}

export { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver';
