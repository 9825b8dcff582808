// The email channel in a cluster (issue 47): two processes on one PostgreSQL — this test's and a
// real `server.ts --worker` — a real Dovecot, the test's DNS and SMTP receiver. The worker holds
// the channel and is killed with SIGKILL while it is reading a batch of mails (its cursor part-way
// through); the survivor takes the channel with its lease and reads on from the cursor. Every
// mail reaches the session once — none lost, none handed over twice — and no reply is sent twice.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { closeDb, getDb } from '@/lib/store/db';
import { listOpenPairings, readOffset, saveChannel } from '@/lib/store/channels-repository';
import { readWholeSession } from '@/lib/store/messages-repository';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';
import { startPostgres, type TestPostgres } from '@/test/support/postgres';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import type { WorkerProcess } from '@/test/support/worker-process';
import { channelHolder, workerHoldingChannel } from '@/test/support/channel-lease';
import { startDovecot, type TestImapServer } from '@/test/support/dovecot';
import { startFakeDns, type FakeDns } from '@/test/support/fake-dns';
import { composeMail, publishDomain, startSmtpReceiver, type SmtpReceiver } from '@/test/support/mail';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let database: TestPostgres;
let model: FakeOpenAIServer;
let imap: TestImapServer;
let smtp: SmtpReceiver;
let dns: FakeDns;
let worker: WorkerProcess | null = null;
let here: Orchestrator | null = null;
const ANA = 'ana@example.org';

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  database = await startPostgres();
  process.env.AGENTCSD_DATABASE_URL = database.url;
  // A slow model: the kill below comes while mails are read, not while replies are sent.
  [model, imap, smtp, dns] = await Promise.all([startFakeOpenAIServer({ script: mindScript, firstDeltaDelayMs: 400 }), startDovecot(), startSmtpReceiver(), startFakeDns()]);
  publishDomain(dns, 'example.org');
  process.env.AGENTCSD_DNS_SERVERS = dns.server;
  await getDb();
}, 60_000);

afterAll(async () => {
  await worker?.kill();
  await here?.stop();
  await Promise.all([imap?.stop(), smtp?.close(), dns?.close(), model?.close()]);
  await closeDb();
  delete process.env.AGENTCSD_DATABASE_URL;
  delete process.env.AGENTCSD_DNS_SERVERS;
  await database?.stop();
});

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });
const anaWrites = async (subject: string, text: string) => {
  const raw = await composeMail({ from: `Ana <${ANA}>`, to: 'agent@example.net', subject, text, signedBy: 'example.org' });
  await imap.deliver('agent', raw);
  return /^Message-ID: (.+)$/im.exec(raw)![1]!.trim();
};

describe('an email channel shared by two processes', () => {
  it('moves with its lease when its holder is killed mid-fetch, and reads every mail once', async () => {
    const channelId = randomUUID();
    const input = channelInputSchema.parse({
      id: channelId,
      kind: 'email',
      name: 'mail',
      config: { address: 'agent@example.net', imap: { host: '127.0.0.1', port: imap.port, tls: false, user: 'agent', password: imap.password }, smtp: { host: '127.0.0.1', port: smtp.port, tls: false, user: smtp.user, password: smtp.password } },
    });
    await saveChannel({ id: channelId, kind: 'email', name: 'mail', enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
    ({ worker, here } = await workerHoldingChannel({ channelId, databaseUrl: database.url, dirs }));
    const holder = () => channelHolder(channelId);
    const session = await here.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
    await anaWrites('Hello', 'hello');
    await expect.poll(() => listOpenPairings(channelId, new Date()).then((open) => open.length), { timeout: 20_000 }).toBe(1);
    const [pairing] = await listOpenPairings(channelId, new Date());
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id, role: 'trusted', share: true }));
    const cursor = async () => Number(((await readOffset(channelId)) ?? '0:0').split(':')[1]);
    const paired = await cursor();

    // A batch of mails; the holder dies once it has read some of them and before it has read all.
    const ids: string[] = [];
    for (let index = 0; index < 12; index++) ids.push(await anaWrites(`Item ${index}`, `item number ${index}`));
    await expect.poll(cursor, { timeout: 20_000, interval: 20 }).toBeGreaterThanOrEqual(paired + 2);
    await worker.kill();
    const readByWorker = (await cursor()) - paired;

    await expect.poll(holder, { timeout: 20_000, interval: 200 }).toBe('process-a');
    await expect.poll(cursor, { timeout: 30_000 }).toBe(paired + 12);
    const user = async () => (await readWholeSession({ sessionId: session.id })).messages.filter((message) => message.tag === 'ED_user');
    await expect.poll(async () => {
      const messages = await user();
      return ids.filter((id) => messages.some((message) => message.content.includes(id))).length;
    }, { timeout: 30_000 }).toBe(12);
    for (const id of ids) expect((await user()).filter((message) => message.content.includes(id))).toHaveLength(1);
    // Answers go out (to the last mail of the batch at least), each mail of ours once.
    await expect.poll(() => smtp.received.some((mail) => (mail.text ?? '').includes('item number 11')), { timeout: 40_000 }).toBe(true);
    const sent = smtp.received.map((mail) => mail.messageId);
    expect(new Set(sent).size).toBe(sent.length);
    expect(readByWorker).toBeLessThan(12);
  }, 150_000);
});
