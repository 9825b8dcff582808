import { z } from 'zod';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { readUpload, requireUpload } from '@/lib/http/uploads';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().uuid() });

/** A stored attachment's bytes (issue 33): its sniffed type, nosniff, sandboxed, a download unless an image. */
export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const { bytes, headers } = await readUpload(await requireUpload(id));
  return new Response(new Uint8Array(bytes), { status: 200, headers });
});
