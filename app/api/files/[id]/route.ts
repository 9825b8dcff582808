import { z } from 'zod';
import { handle, parseParams } from '@/lib/http/route-helpers';
import { readUpload, requireUpload } from '@/lib/http/uploads';
import { ApiError } from '@/lib/http/api-error';
import { requireWords } from '@/lib/http/web-visitor';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().uuid() });

/** A stored attachment's bytes (issue 33): its sniffed type, nosniff, sandboxed, a download unless an image. */
export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const upload = await requireUpload(id);
  // A file of a conversation: its people's (a signed-in person's own), and the owner's unless its words are kept its people's (issue 61).
  // Not theirs answers exactly as absent: one body for both, nothing tells that it exists (issue 72 §3).
  await requireWords(request, upload.sessionId).catch((error: unknown) => {
    throw error instanceof ApiError && (error.code === 'forbidden' || error.code === 'not_found') ? new ApiError('not_found', `No file ${id}`) : error;
  });
  const { bytes, headers } = await readUpload(upload);
  return new Response(new Uint8Array(bytes), { status: 200, headers });
});
