import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { channelIdSchema } from '@/lib/channels/channel-config';
import { createAdapter } from '@/lib/channels/channel-service';
import { findChannel } from '@/lib/store/channels-repository';
import { errorText } from '@/lib/errors/error-text';

export const dynamic = 'force-dynamic';

/** Tries the saved settings on a connection of its own: `{ ok, detail }` or `{ ok: false, error }`. */
export const POST = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, channelIdSchema);
  const channel = await findChannel(id);
  if (!channel) throw new ApiError('not_found', `No channel ${id}`);
  try {
    return Response.json({ ok: true, detail: await (await createAdapter(channel)).test() });
  } catch (error) {
    return Response.json({ ok: false, error: errorText(error) });
  }
});
