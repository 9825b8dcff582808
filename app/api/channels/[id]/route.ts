import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { channelIdSchema } from '@/lib/channels/channel-config';
import { deleteChannel } from '@/lib/store/channels-repository';

export const dynamic = 'force-dynamic';

/** Disconnects and forgets the channel, its pairings, bindings and outbox. */
export const DELETE = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, channelIdSchema);
  if (!(await deleteChannel(id))) throw new ApiError('not_found', `No channel ${id}`);
  await getOrchestrator().channels?.reload(id);
  return new Response(null, { status: 204 });
});
