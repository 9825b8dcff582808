// Push-to-talk (issue 76 §3): the page's recording (multipart, one `file`) kept with the session as
// audio, through the upload checks, and heard on the speech server → 201 {file, text} for the
// composer to show and edit before it goes; not heard (no server, a refusal) → 201 {file, text:
// null, problem}: the recording is kept and attached all the same, and the person may type instead.
import { z } from 'zod';
import { readEnv } from '@/lib/config/env';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readMultipartForm } from '@/lib/http/route-helpers';
import { prepareUpload, storeUpload } from '@/lib/http/uploads';
import { errorText } from '@/lib/errors/error-text';
import { spend } from '@/lib/people/rights';
import { findSession } from '@/lib/store/sessions-repository';
import { uploadJson } from '@/lib/store/uploads-repository';
import { transcribeFor } from '@/lib/voice/speech-meter';
import { transcriptionServer } from '@/lib/voice/voice-settings';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

const fileSchema = z.object({ name: z.string().max(1_000), type: z.string().max(200), size: z.number().int().min(1) });

export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `No session ${id}`);
  const limit = readEnv().AGENTCSD_UPLOAD_MAX_MB * 1024 * 1024;
  const form = await readMultipartForm(request, limit + 64 * 1024, 'Send the recording as multipart/form-data with a "file" field');
  const file = form.get('file');
  if (!(file instanceof File) || !fileSchema.safeParse({ name: file.name, type: file.type, size: file.size }).success) throw new ApiError('validation_failed', 'The form needs one "file" field holding the recording');
  if (file.size > limit) throw new ApiError('payload_too_large', `The recording is larger than ${readEnv().AGENTCSD_UPLOAD_MAX_MB} MB`);
  const bytes = Buffer.from(await file.arrayBuffer());
  // Known by its bytes before anything is kept: what is not a recording leaves nothing behind.
  const prepared = await prepareUpload({ name: file.name || 'recording.webm', claimedType: file.type || null, bytes });
  if (prepared.kind !== 'audio') throw new ApiError('unprocessable', `That is not a recording (${prepared.mimeType}): send it with + Attach instead`);
  const row = await storeUpload(id, prepared);
  // Past the day's allowance the speech server is not asked, as no model would be (the recording is kept).
  const spent = await spend(id, new Date());
  if (spent.verdict === 'refuse') return Response.json({ file: uploadJson(row), text: null, problem: spent.reason }, { status: 201 });
  const server = await transcriptionServer();
  if (!server) return Response.json({ file: uploadJson(row), text: null, problem: 'Nothing hears recordings here yet: the owner sets a speech server in Settings › Voice. The recording is attached; type your words too.' }, { status: 201 });
  try {
    const heard = await transcribeFor(id, server, { bytes, filename: row.name, mimeType: row.mimeType });
    return Response.json({ file: uploadJson(row), text: heard.text }, { status: 201 });
  } catch (error) {
    return Response.json({ file: uploadJson(row), text: null, problem: `Not heard: ${errorText(error)}. The recording is attached; type your words too.` }, { status: 201 });
  }
});
