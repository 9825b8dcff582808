// The email channel, measured (issue 47), in one process: the real adapter against a real Dovecot
// (IMAP IDLE) and an SMTP receiver on loopback, the test's DNS for DKIM, the fake model streaming
// at a fixed pace, the real orchestrator and store:
//   path       — the same message sent into one session from the page's entry and as a signed
//                mail (IMAP APPEND, as delivery would), interleaved: first reply token on the bus,
//                and the whole reply — at turn end on the page, when the SMTP receiver has the
//                reply mail. The difference is what mail adds: IDLE's notice, the fetch, DKIM
//                (a DNS round trip and an RSA verify), parsing, the binding, the outbox, SMTP.
//   throughput — N replies queued at once to one address: mails accepted by the receiver per second.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb } from '@/lib/store/db';
import { enqueueOutbox, listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { channelInputSchema, mergeChannelConfig, type ChannelInput } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { startFakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { startDovecot } from '@/test/support/dovecot';
import { startFakeDns } from '@/test/support/fake-dns';
import { composeMail, publishDomain, startSmtpReceiver } from '@/test/support/mail';
import { busWaiter, interleaved, pathRow, PATH_HEADER } from './channels';
import { formatMs, median } from './stats';

export interface EmailResult {
  page: { firstTokenMs: number[]; wholeMs: number[] };
  mail: { firstTokenMs: number[]; wholeMs: number[] };
  /** The same mail timed from the server's IDLE notice (an observer's): what the app itself adds. */
  afterNotice: { firstTokenMs: number[]; wholeMs: number[] };
  /** APPEND done → IDLE notice: Dovecot's own (it batches changes for 0.5 s). */
  noticeMs: number[];
  throughput: { mails: number; seconds: number };
}

export async function benchEmail(options: { samples: number; mails: number }): Promise<EmailResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-bench-email-'));
  fs.chmodSync(dataDir, 0o755);
  process.env.AGENTCSD_DATA_DIR = dataDir;
  process.env.AGENTCSD_PERSONAS_DIR = path.resolve('personas');
  const [model, imap, smtp, dns] = await Promise.all([startFakeOpenAIServer({ script: mindScript, chunkDelayMs: 5, firstDeltaDelayMs: 50 }), startDovecot(), startSmtpReceiver(), startFakeDns()]);
  publishDomain(dns, 'example.org');
  process.env.AGENTCSD_DNS_SERVERS = dns.server;
  const channelId = randomUUID();
  const input = channelInputSchema.parse({
    id: channelId,
    kind: 'email',
    name: 'bench',
    config: { address: 'agent@example.net', imap: { host: '127.0.0.1', port: imap.port, tls: false, user: 'agent', password: imap.password }, smtp: { host: '127.0.0.1', port: smtp.port, tls: false, user: smtp.user, password: smtp.password } },
  }) as Extract<ChannelInput, { kind: 'email' }>;
  await saveChannel({ id: channelId, kind: 'email', name: 'bench', enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
  const orchestrator = new Orchestrator({ channels: true });
  await orchestrator.start();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
  const session = await orchestrator.createSession({ persona: 'iris', models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } }, params: { pacing: 'adaptive' } });
  const write = async (text: string) => imap.deliver('agent', await composeMail({ from: 'Bench <bench@example.org>', to: 'agent@example.net', subject: 'Bench', text, signedBy: 'example.org' }));
  await write('let me in');
  while ((await listOpenPairings(channelId, new Date())).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const [pairing] = await listOpenPairings(channelId, new Date());
  await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id }));

  const next = busWaiter(orchestrator, session.id);
  // A second IMAP client IDLEs on the same folder: when the server announced each mail.
  const { ImapFlow } = await import('imapflow');
  const observer = new ImapFlow({ host: '127.0.0.1', port: imap.port, secure: false, auth: { user: 'agent', pass: imap.password }, logger: false, disableAutoIdle: true });
  await observer.connect();
  await observer.mailboxOpen('INBOX');
  let noticeAt = 0;
  observer.on('exists', () => (noticeAt = performance.now()));
  let observing: Promise<unknown> = Promise.resolve();
  const notice = async (after: number) => {
    while (noticeAt < after) await new Promise((resolve) => setTimeout(resolve, 1));
    return noticeAt;
  };
  const delivered = (text: string) =>
    new Promise<number>((resolve) => {
      const poll = setInterval(() => {
        if (!smtp.received.some((mail) => (mail.text ?? '').includes(text))) return;
        clearInterval(poll);
        resolve(performance.now());
      }, 1);
    });
  const sample = async (via: 'page' | 'mail', index: number) => {
    const text = `sample ${via} ${index} ${randomUUID().slice(0, 8)}`;
    const firstToken = next((event) => (event.type === 'reply-delta' ? performance.now() : undefined));
    const turnEnd = next((event) => (event.type === 'turn-end' ? performance.now() : undefined));
    // The observer IDLEs afresh for each mail, as the app's connection does between mails.
    if (via === 'mail') {
      observing = observer.idle();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const started = performance.now();
    if (via === 'page') await orchestrator.sendUserMessage(session.id, { text });
    else await write(text);
    const appended = performance.now();
    const first = (await firstToken) - started;
    const whole = via === 'page' ? (await turnEnd) - started : (await delivered(text)) - started;
    await turnEnd;
    const noticed = via === 'mail' ? await notice(appended) : 0;
    if (via === 'mail') {
      await observer.noop(); // ends this IDLE
      await observing;
    }
    return { first, whole, fromNotice: { first: first + started - noticed, whole: whole + started - noticed }, noticeMs: noticed - appended };
  };
  const result: EmailResult = { page: { firstTokenMs: [], wholeMs: [] }, mail: { firstTokenMs: [], wholeMs: [] }, afterNotice: { firstTokenMs: [], wholeMs: [] }, noticeMs: [], throughput: { mails: options.mails, seconds: 0 } };
  await interleaved(['page', 'mail'], options.samples, sample, (via, { first, whole, fromNotice, noticeMs }) => {
    result[via].firstTokenMs.push(first);
    result[via].wholeMs.push(whole);
    if (via === 'mail') {
      result.afterNotice.firstTokenMs.push(fromNotice.first);
      result.afterNotice.wholeMs.push(fromNotice.whole);
      result.noticeMs.push(noticeMs);
    }
  });

  await orchestrator.pauseSession(session.id);
  const before = smtp.received.length;
  const started = performance.now();
  for (let index = 0; index < options.mails; index++) await enqueueOutbox({ channelId, address: 'bench@example.org', payload: { text: `queued ${index}` } });
  orchestrator.channels!.wake(channelId);
  while (smtp.received.length - before < options.mails) await new Promise((resolve) => setTimeout(resolve, 10));
  result.throughput.seconds = (performance.now() - started) / 1000;

  await observer.logout();
  await orchestrator.stop();
  await Promise.all([imap.stop(), smtp.close(), dns.close(), model.close()]);
  await closeDb();
  delete process.env.AGENTCSD_DNS_SERVERS;
  fs.rmSync(dataDir, { recursive: true, force: true });
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
    `Dovecot announces a mail to an IDLE client ${formatMs(median(result.noticeMs))} ms (median) after its APPEND — its own batching of changes (a fixed half second in its mailbox watcher), not ours. From that notice the app adds ${formatMs(median(result.afterNotice.firstTokenMs) - median(result.page.firstTokenMs))} ms to the first token and ${formatMs(median(result.afterNotice.wholeMs) - median(result.page.wholeMs))} ms to the whole reply (fetch, DKIM with a DNS round trip, parsing, the binding, the outbox, SMTP — and most of it the longer reply: the fake model echoes the mail's header line too, at 4 characters per 5 ms); end to end mail adds ${formatMs(median(result.mail.firstTokenMs) - median(result.page.firstTokenMs))} ms to the first token (medians, interleaved samples).`,
    '',
    `Throughput: ${throughput.mails} replies queued at once reached the SMTP receiver in ${throughput.seconds.toFixed(2)} s = ${(throughput.mails / throughput.seconds).toFixed(1)} mails/s (one pooled SMTP connection, in outbox order).`,
  ].join('\n');
}
