// Mail for the email channel's tests (issue 47): messages composed as a mail client would
// (nodemailer's MailComposer), DKIM-signed with a key whose public half the test's DNS serves, and
// an SMTP submission server on loopback (smtp-server) that keeps what the app sends, parsed.
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { SMTPServer } from 'smtp-server';
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

export interface SmtpReceiver {
  port: number;
  user: string;
  password: string;
  received: ParsedMail[];
  /** Envelope recipients of each mail, in order. */
  recipients: string[][];
  /** The next `count` mails are refused with this SMTP status (e.g. 451: try later). */
  refuseNext(count: number, status: number): void;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ParsedMail[] = [];
  const recipients: string[][] = [];
  const user = 'agent@example.net';
  const password = 'smtp-app-password';
  let refusals = { count: 0, status: 451 };
  const server = new SMTPServer({
    secure: false,
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refusals.count > 0) {
          refusals.count--;
          return callback(Object.assign(new Error('Try again later'), { responseCode: refusals.status }));
        }
        void simpleParser(Buffer.concat(chunks)).then((parsed) => {
          received.push(parsed);
          recipients.push(session.envelope.rcptTo.map((to) => to.address));
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    user,
    password,
    received,
    recipients,
    refuseNext: (count, status) => (refusals = { count, status }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
