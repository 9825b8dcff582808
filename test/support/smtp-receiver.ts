// An SMTP submission server on loopback for the email channel's tests and benchmark (issue 47):
// smtp-server with a password, no TLS; it keeps what the app sends, parsed, and can refuse the
// next mails with a status (451: try later; 550: never).
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

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
