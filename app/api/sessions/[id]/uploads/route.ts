import { z } from 'zod';
import { readEnv } from '@/lib/config/env';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readMultipartForm } from '@/lib/http/route-helpers';
import { acceptUpload } from '@/lib/http/uploads';
import { findSession } from '@/lib/store/sessions-repository';
import { listUploads, uploadJson } from '@/lib/store/uploads-repository';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

const fileSchema = z.object({ name: z.string().max(1_000), type: z.string().max(200), size: z.number().int().min(0) });

/**
 * A file for a message (issue 33, ARCHITECTURE §19): multipart with one `file` field → 201
 * `{ file }`. Past AGENTCSD_UPLOAD_MAX_MB (20) a 413 before the rest is read; an image that cannot
 * be decoded safely (a bomb, a broken file) a 422 with the reason; nothing written then.
 */
export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `No session ${id}`);
  const limit = readEnv().AGENTCSD_UPLOAD_MAX_MB * 1024 * 1024;
  // The form's own bytes on top of the file: a little room for the boundary and headers.
  const form = await readMultipartForm(request, limit + 64 * 1024, 'Send the file as multipart/form-data with a "file" field');
  const file = form.get('file');
  if (!(file instanceof File) || !fileSchema.safeParse({ name: file.name, type: file.type, size: file.size }).success) {
    throw new ApiError('validation_failed', 'The form needs one "file" field holding a file');
  }
  if (file.size > limit) throw new ApiError('payload_too_large', `The file is larger than ${readEnv().AGENTCSD_UPLOAD_MAX_MB} MB`);
  if (file.size === 0) throw new ApiError('validation_failed', 'The file is empty');
  const row = await acceptUpload({ sessionId: id, name: file.name, claimedType: file.type || null, bytes: Buffer.from(await file.arrayBuffer()) });
  return Response.json({ file: uploadJson(row) }, { status: 201 });
});

/** The session's files, oldest first. */
export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `No session ${id}`);
  return Response.json({ files: (await listUploads(id)).map(uploadJson) });
});
