// The injection corpus's Slack vector (issue 62): a message in a channel the agent joined, from a
// member nobody paired, handed to the channels' inbound (handleMessage) as the Slack adapter hands
// it after Socket Mode — the transport itself is tested against the fake Slack in test/channels.
import { randomUUID } from 'node:crypto';
import { handleMessage, type InboundContext } from '@/lib/channels/channel-inbound';
import { groupSender } from '@/lib/channels/channel-groups';
import { channelInputSchema, mergeChannelConfig, type ChannelInput } from '@/lib/channels/channel-config';
import { channelHost } from '@/lib/orchestrator/channel-host';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { insertGroup } from '@/lib/store/channel-groups-repository';
import { saveBinding, saveChannel, type ChannelRecord } from '@/lib/store/channels-repository';
import { personForSender } from '@/lib/store/people-repository';

const TOKEN = 'xoxb-1000-2000-unused-in-the-corpus';

/** A member nobody paired mentions the agent in a Slack channel joined to this session; resolves once the message is the session's. */
export async function slackChannelMessage(sessionId: string, text: string): Promise<void> {
  const id = randomUUID();
  const input = channelInputSchema.parse({ id, kind: 'slack', name: 'team', enabled: false, config: { app_token: 'xapp-1-A0-unused-in-the-corpus', bot_token: TOKEN } }) as Extract<ChannelInput, { kind: 'slack' }>;
  const channel: ChannelRecord = await saveChannel({ id, kind: 'slack', name: 'team', enabled: false, config: mergeChannelConfig({ ...input, id }, null) });
  const group = { id: `channel:C${id.slice(0, 8).toUpperCase()}`, title: '#general', addressed: true };
  const person = await personForSender({ sender: groupSender('slack', group.id), name: group.title, role: 'guest' });
  await saveBinding({ id: randomUUID(), channelId: id, sender: groupSender('slack', group.id), senderName: group.title, address: group.id, sessionId, persona: null, push: 'all', quietHours: null, personId: person.id });
  await insertGroup({ id: randomUUID(), channelId: id, groupId: group.id, title: group.title, sessionId, personId: person.id, answer: 'mentions' });
  const context: InboundContext = { channel, host: channelHost(getOrchestrator()), counters: { received: 0, ignored: 0 }, wake: () => undefined, now: () => new Date() };
  await handleMessage(context, { sender: `slack:U${id.slice(0, 8).toUpperCase()}`, senderName: '@mallory', address: group.id, text, group });
}
