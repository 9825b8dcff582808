// The email channel, measured (issue 47), on the shared chat bench (chat-bench.ts): the real
// adapter against a real Dovecot (IMAP IDLE) and an SMTP receiver on loopback, the test's DNS for
// DKIM:
//   path       — the same message from the page and as a signed mail (IMAP APPEND, as delivery
//                would), interleaved: first reply token on the bus, and the whole reply — at turn
//                end on the page, when the SMTP receiver has the reply mail. Dovecot tells an IDLE
//                client of a new mail half a second after it arrives (its own batching): a second
//                IMAP client IDLEs beside the app and times that notice, so what the app itself
//                adds (the fetch, DKIM with a DNS round trip, parsing, the binding, the outbox,
//                SMTP) is shown apart.
//   throughput — N replies queued at once to one address: mails accepted by the receiver per second.
import { enqueueOutbox } from '@/lib/store/channels-repository';
import { startDovecot } from '@/test/support/dovecot';
import { startFakeDns } from '@/test/support/fake-dns';
import { composeMail, publishDomain, startSmtpReceiver } from '@/test/support/mail';
import { added, interleaved, pathRow, PATH_HEADER, samplePath, startChatBench, whenFound, type PathSamples } from './chat-bench';
import { formatMs, median } from './stats';

export interface EmailResult {
  page: PathSamples;
  mail: PathSamples;
  /** The same mail timed from the server's IDLE notice (an observer's): what the app itself adds. */
  afterNotice: PathSamples;
  /** APPEND done → IDLE notice: Dovecot's own. */
  noticeMs: number[];
  throughput: { mails: number; seconds: number };
}

export async function benchEmail(options: { samples: number; mails: number }): Promise<EmailResult> {
  const [imap, smtp, dns] = await Promise.all([startDovecot(), startSmtpReceiver(), startFakeDns()]);
  publishDomain(dns, 'example.org');
  process.env.AGENTCSD_DNS_SERVERS = dns.server;
  const server = (port: number, user: string, password: string) => ({ host: '127.0.0.1', port, tls: false, user, password });
  const write = async (text: string) => imap.deliver('agent', await composeMail({ from: 'Bench <bench@example.org>', to: 'agent@example.net', subject: 'Bench', text, signedBy: 'example.org' }));
  const bench = await startChatBench({
    kind: 'email',
    config: { address: 'agent@example.net', imap: server(imap.port, 'agent', imap.password), smtp: server(smtp.port, smtp.user, smtp.password) },
    pair: () => write('let me in'),
  });

  // A second IMAP client IDLEs on the same folder, afresh for each mail as the app's connection does.
  const { ImapFlow } = await import('imapflow');
  const observer = new ImapFlow({ host: '127.0.0.1', port: imap.port, secure: false, auth: { user: 'agent', pass: imap.password }, logger: false, disableAutoIdle: true });
  await observer.connect();
  await observer.mailboxOpen('INBOX');
  let noticeAt = 0;
  let appendedAt = 0;
  observer.on('exists', () => (noticeAt = performance.now()));
  let observing: Promise<unknown> = observer.idle();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const mail = {
    send: async (text: string) => {
      await write(text);
      appendedAt = performance.now();
    },
    arrived: (text: string) => whenFound(() => (smtp.received.some((received) => (received.text ?? '').includes(text)) ? performance.now() : undefined)),
    after: async (startedAt: number) => {
      const noticed = await whenFound(() => (noticeAt >= appendedAt ? noticeAt : undefined));
      await observer.noop(); // ends this IDLE; the next mail's starts now
      await observing;
      observing = observer.idle();
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { shift: noticed - startedAt, noticeMs: noticed - appendedAt };
    },
  };
  const result: EmailResult = { page: { firstTokenMs: [], wholeMs: [] }, mail: { firstTokenMs: [], wholeMs: [] }, afterNotice: { firstTokenMs: [], wholeMs: [] }, noticeMs: [], throughput: { mails: options.mails, seconds: 0 } };
  await interleaved(['page', 'mail'], options.samples, (via, index) => samplePath(bench, via, index, mail), (via, { first, whole, extra }) => {
    result[via].firstTokenMs.push(first);
    result[via].wholeMs.push(whole);
    if (via === 'mail' && extra) {
      result.afterNotice.firstTokenMs.push(first - extra.shift);
      result.afterNotice.wholeMs.push(whole - extra.shift);
      result.noticeMs.push(extra.noticeMs);
    }
  });

  await bench.orchestrator.pauseSession(bench.sessionId);
  const before = smtp.received.length;
  const started = performance.now();
  for (let index = 0; index < options.mails; index++) await enqueueOutbox({ channelId: bench.channelId, address: 'bench@example.org', payload: { text: `queued ${index}` } });
  bench.orchestrator.channels!.wake(bench.channelId);
  while (smtp.received.length - before < options.mails) await new Promise((resolve) => setTimeout(resolve, 10));
  result.throughput.seconds = (performance.now() - started) / 1000;

  await observer.logout();
  await bench.close();
  await Promise.all([imap.stop(), smtp.close(), dns.close()]);
  delete process.env.AGENTCSD_DNS_SERVERS;
  return result;
}

export function emailTable(result: EmailResult): string {
  const { throughput } = result;
  return [
    ...PATH_HEADER,
    pathRow('the page (send-message)', result.page),
    pathRow('a signed mail (APPEND → Dovecot IDLE → SMTP)', result.mail),
    pathRow('the same mail, from the server’s IDLE notice', result.afterNotice),
    '',
    `Dovecot announces a mail to an IDLE client ${formatMs(median(result.noticeMs))} ms (median) after its APPEND — its own batching of changes (a fixed half second in its mailbox watcher), not ours. From that notice the app adds ${added(result.page, result.afterNotice)}; most of the whole-reply difference is the longer reply (the fake model echoes the mail's header line too, at 4 characters per 5 ms). End to end, mail adds ${formatMs(median(result.mail.firstTokenMs) - median(result.page.firstTokenMs))} ms to the first token.`,
    '',
    `Throughput: ${throughput.mails} replies queued at once reached the SMTP receiver in ${throughput.seconds.toFixed(2)} s = ${(throughput.mails / throughput.seconds).toFixed(1)} mails/s (one pooled SMTP connection, in outbox order).`,
  ].join('\n');
}
