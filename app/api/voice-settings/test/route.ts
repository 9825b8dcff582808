// *Test* for Settings › Voice: a second of silence sent to the server as typed (its key, or the
// stored one when none is typed) → {ok, latency_ms} or {ok: false, error} in the server's words.
import { z } from 'zod';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { testTranscription } from '@/lib/voice/transcribe';
import { transcriptionInputSchema, transcriptionServer } from '@/lib/voice/voice-settings';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ transcription: transcriptionInputSchema }).strict();

export const POST = handle(async (request) => {
  const { transcription } = await readJsonBody(request, bodySchema, 8 * 1024);
  const storedKey = transcription.api_key === undefined ? (await transcriptionServer())?.apiKey : undefined;
  const apiKey = transcription.api_key || storedKey;
  return Response.json(await testTranscription({ endpoint: transcription.endpoint, model: transcription.model, ...(transcription.language && { language: transcription.language }), ...(apiKey && { apiKey }) }));
});
