// *Test* for Settings › Voice, as typed (its key, or the stored one when none is typed):
// transcription — a second of silence sent → {ok, latency_ms} or {ok: false, error} in the server's
// words; speech — a sentence said → {ok, latency_ms, audio} (a data: URL the page plays) or why not.
import { z } from 'zod';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { errorText } from '@/lib/errors/error-text';
import { speak } from '@/lib/voice/speak';
import { testTranscription } from '@/lib/voice/transcribe';
import { speechInputSchema, transcriptionInputSchema, transcriptionServer, typedSpeechVoice } from '@/lib/voice/voice-settings';

export const dynamic = 'force-dynamic';

const bodySchema = z.union([z.object({ transcription: transcriptionInputSchema }).strict(), z.object({ speech: speechInputSchema }).strict()]);

const SAMPLE_SENTENCE = 'Hello. This is how I sound when I read a reply aloud.';

export const POST = handle(async (request) => {
  const body = await readJsonBody(request, bodySchema, 8 * 1024);
  if ('speech' in body) {
    const started = performance.now();
    try {
      const spoken = await speak(await typedSpeechVoice(body.speech), SAMPLE_SENTENCE, 'mp3', { signal: AbortSignal.timeout(30_000) });
      return Response.json({ ok: true, latency_ms: Math.round(performance.now() - started), audio: `data:${spoken.mimeType};base64,${spoken.bytes.toString('base64')}` });
    } catch (error) {
      return Response.json({ ok: false, error: errorText(error) });
    }
  }
  const { transcription } = body;
  const storedKey = transcription.api_key === undefined ? (await transcriptionServer())?.apiKey : undefined;
  const apiKey = transcription.api_key || storedKey;
  return Response.json(await testTranscription({ endpoint: transcription.endpoint, model: transcription.model, ...(transcription.language && { language: transcription.language }), ...(apiKey && { apiKey }) }));
});
