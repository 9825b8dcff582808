// Settings › Voice (issue 76 §1): the speech-to-text server. GET without its key (whether one is
// kept); PUT a server (a key left out keeps the stored one, '' clears it) or null for none. Owner
// only (the web table lets nobody else reach it).
import { z } from 'zod';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { publicVoiceSettings, saveTranscriptionServer, transcriptionInputSchema } from '@/lib/voice/voice-settings';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ transcription: transcriptionInputSchema.nullable() }).strict();

export const GET = handle(async () => Response.json(await publicVoiceSettings()));

export const PUT = handle(async (request) => {
  const { transcription } = await readJsonBody(request, bodySchema, 8 * 1024);
  await saveTranscriptionServer(transcription);
  return Response.json(await publicVoiceSettings());
});
