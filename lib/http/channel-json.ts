// A channel as the REST answers show it: secrets masked, with its live state where this process
// runs the channels (stopped elsewhere).
import { channelJson } from '@/lib/channels/channel-config';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { heldReason, outboxCounts, type ChannelRecord } from '@/lib/store/channels-repository';

export async function describeChannel(channel: ChannelRecord) {
  const service = getOrchestrator().channels;
  const status = service ? await service.status(channel.id) : { state: { kind: 'stopped' }, counters: { received: 0, ignored: 0, sent: 0 }, outbox: await outboxCounts(channel.id), waiting: await heldReason(channel.id) };
  return channelJson(channel, status);
}
