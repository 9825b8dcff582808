// The injection corpus's mail vector (issue 47): a DKIM-signed mail from a paired person, read by
// the email channel's own parser (readMail) and handed to the channels' inbound (handleMessage) as
// the adapter does after IMAP — the transport itself is tested on Dovecot in test/channels.
import { randomUUID } from 'node:crypto';
import { readMail } from '@/lib/channels/email-message';
import { handleMessage, type InboundContext } from '@/lib/channels/channel-inbound';
import { channelInputSchema, mergeChannelConfig, type ChannelInput } from '@/lib/channels/channel-config';
import { channelHost } from '@/lib/orchestrator/channel-host';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { findBinding, saveBinding, saveChannel, updateBinding, type ChannelRecord } from '@/lib/store/channels-repository';
import { personForSender } from '@/lib/store/people-repository';
import { composeMail, signingResolver } from '@/test/support/mail';

const ANA = 'ana@example.org';
let channel: ChannelRecord | null = null;

async function mailChannel(): Promise<ChannelRecord> {
  if (channel) return channel;
  const id = randomUUID();
  const server = { host: '127.0.0.1', port: 1, tls: false, user: 'agent', password: 'unused-here' };
  const input = channelInputSchema.parse({ id, kind: 'email', name: 'mail', enabled: false, config: { address: 'agent@example.net', imap: server, smtp: server } }) as Extract<ChannelInput, { kind: 'email' }>;
  channel = await saveChannel({ id, kind: 'email', name: 'mail', enabled: false, config: mergeChannelConfig({ ...input, id }, null) });
  return channel;
}

/** Ana (trusted, paired to this session) mails the agent; resolves once the mail is the session's. */
export async function mailArrives(sessionId: string, subject: string, text: string): Promise<void> {
  const mail = await mailChannel();
  const sender = `email:${ANA}`;
  const binding = await findBinding(mail.id, sender);
  if (binding) await updateBinding(binding.id, { sessionId });
  else {
    const person = await personForSender({ sender, name: 'Ana', role: 'trusted' });
    await saveBinding({ id: randomUUID(), channelId: mail.id, sender, senderName: `Ana <${ANA}>`, address: ANA, sessionId, persona: null, push: 'all', quietHours: null, personId: person.id });
  }
  const raw = await composeMail({ from: `Ana <${ANA}>`, to: 'agent@example.net', subject, text, signedBy: 'example.org' });
  const read = await readMail(Buffer.from(raw), { ownAddress: 'agent@example.net', resolver: signingResolver(['example.org']) });
  if (!read?.verified) throw new Error('the test mail did not verify');
  const context: InboundContext = { channel: mail, host: channelHost(getOrchestrator()), counters: { received: 0, ignored: 0 }, wake: () => undefined, now: () => new Date() };
  await handleMessage(context, read.message);
}
