// Settings › Voice (issue 76 §1, §4): the speech-to-text server and the voice replies are read in.
// GET without keys (whether one is kept); PUT either or both — a server (a key left out keeps the
// stored one, '' clears it) or null for none (no transcription; the browser's own voices). Owner
// only (the web table lets nobody else reach it).
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { publicVoiceSettings, saveSpeechVoice, saveTranscriptionServer, speechInputSchema, transcriptionInputSchema } from '@/lib/voice/voice-settings';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ transcription: transcriptionInputSchema.nullable().optional(), speech: speechInputSchema.nullable().optional() }).strict();

export const GET = handle(async () => Response.json(await publicVoiceSettings()));

export const PUT = handle(async (request) => {
  const body = await readJsonBody(request, bodySchema, 8 * 1024);
  if (body.transcription === undefined && body.speech === undefined) throw new ApiError('validation_failed', 'Send "transcription", "speech" or both');
  if (body.transcription !== undefined) await saveTranscriptionServer(body.transcription);
  if (body.speech !== undefined) await saveSpeechVoice(body.speech);
  return Response.json(await publicVoiceSettings());
});
