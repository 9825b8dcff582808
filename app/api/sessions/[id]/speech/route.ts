// A chat message read aloud in the server's voice (issue 76 §4): `{message_id}` → the audio (MP3,
// or WAV where this machine has no ffmpeg), said by the voice Settings › Voice names and counted on
// the conversation's allowances. None named → 409: the page reads it with the browser's
// own voices. Past an allowance → 429 with when it renews; a failing server → 502 in its words.
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { errorText } from '@/lib/errors/error-text';
import { findChatMessage } from '@/lib/store/messages-repository';
import { findSession } from '@/lib/store/sessions-repository';
import { spokenText } from '@/lib/voice/spoken-text';
import { SpeechError } from '@/lib/voice/speak';
import { SpeechRefused, speakFor } from '@/lib/voice/speech-meter';
import { speechVoice } from '@/lib/voice/voice-settings';
import { sessionParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ message_id: z.number().int().positive() }).strict();

export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  if (!(await findSession({ id }))) throw new ApiError('not_found', `No session ${id}`);
  const { message_id } = await readJsonBody(request, bodySchema, 1024);
  const message = await findChatMessage({ sessionId: id, id: message_id });
  if (!message) throw new ApiError('not_found', `No message ${message_id} in this conversation`);
  const voice = await speechVoice();
  if (!voice) throw new ApiError('conflict', 'No voice is set on the server (Settings › Voice): this browser reads it with its own');
  const words = spokenText(message.content);
  if (!words) throw new ApiError('unprocessable', 'That message has no words to say');
  try {
    const spoken = await speakFor(id, voice, words, 'mp3');
    return new Response(new Uint8Array(spoken.bytes), { headers: { 'content-type': spoken.mimeType, 'content-length': String(spoken.bytes.byteLength), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } });
  } catch (error) {
    if (error instanceof SpeechRefused) {
      const refused = new ApiError('too_many_requests', error.message).toResponse();
      refused.headers.set('retry-after', String(Math.ceil(error.retryAfterMs / 1000)));
      return refused;
    }
    if (error instanceof SpeechError && error.kind === 'unavailable') throw new ApiError('unavailable', errorText(error));
    throw new ApiError('upstream_failed', `Not said: ${errorText(error)}`);
  }
});
