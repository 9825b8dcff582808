// Speech within the allowances (issue 76 §5), as embeddings are (lib/memory/embedding-meter.ts): a
// recording heard or a reply said for a conversation is a paid call like a model's — its worst case
// (the recording's minutes, the reply's characters, at the price speech-prices.ts finds) reserved
// on every allowance the conversation answers to before the server is asked, what it really took
// settled after, and a row in llm_calls on the `speech` layer (Spending and the session's table show
// it). Past an allowance nothing is sent: SpeechRefused says whose allowance and when it renews.
import { describeRefusal, untilNextDay } from '@/lib/mind/allowance-guard';
import { errorText } from '@/lib/errors/error-text';
import { allowancesForSession, reserve, settle } from '@/lib/store/allowances-repository';
import { insertLlmCall } from '@/lib/store/mind-repository';
import { audioLength } from './audio-length';
import { speak, type Spoken, type SpokenFormat } from './speak';
import { speechPrice, transcriptionPrice } from './speech-prices';
import { transcribe, type Transcript } from './transcribe';
import type { SpeechVoice, TranscriptionServer } from './voice-settings';

/** An allowance refused the call: nothing was sent to the speech server. */
export class SpeechRefused extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
    this.name = 'SpeechRefused';
  }
}

interface Call<T> {
  sessionId: string;
  backend: string;
  model: string;
  worstUsd: number;
  run(): Promise<T>;
  /** What the answered call cost. */
  cost(result: T): number;
}

async function metered<T>(call: Call<T>, now: () => Date = () => new Date()): Promise<T> {
  const allowances = await allowancesForSession(call.sessionId);
  const started = now();
  const worst = { usd: call.worstUsd, tokens: 0 };
  const held = await reserve(allowances, worst, started);
  if (!held.ok) throw new SpeechRefused(`The speech server was not asked: ${describeRefusal(held.refusal, worst)}`, untilNextDay(started, held.refusal.allowance.timeZone));
  let usd = 0;
  let failure: Error | null = null;
  try {
    const result = await call.run();
    usd = call.cost(result);
    return result;
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A failed call is taken as having cost nothing.
    await settle(held.reservation, { usd, tokens: 0 });
    await insertLlmCall({
      sessionId: call.sessionId,
      layer: 'speech',
      backend: call.backend,
      model: call.model,
      startedAt: started,
      firstTokenMs: null,
      durationMs: Math.max(0, now().getTime() - started.getTime()),
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: usd,
      finishReason: failure ? null : 'stop',
      error: failure ? failure.message : null,
    }).catch((error: unknown) => console.warn('[voice] a speech call could not be recorded:', errorText(error)));
  }
}

/** A conversation's recording heard, its minutes counted on the conversation's allowances. */
export function transcribeFor(sessionId: string, server: TranscriptionServer, audio: { bytes: Uint8Array; filename: string; mimeType: string }, options: { signal?: AbortSignal } = {}): Promise<Transcript> {
  const perMinute = transcriptionPrice(server.model, server.usdPerMinute);
  const length = audioLength(audio.bytes);
  return metered({
    sessionId,
    backend: 'speech_to_text',
    model: server.model,
    worstUsd: (perMinute * (length.exact ? length.seconds : audioLength(audio.bytes, { worst: true }).seconds)) / 60,
    run: () => transcribe(server, audio, options),
    cost: (heard) => (perMinute * (heard.seconds ?? length.seconds)) / 60,
  });
}

/** Words said for a conversation, their characters counted on the conversation's allowances. */
export function speakFor(sessionId: string, voice: SpeechVoice, text: string, format: SpokenFormat, options: { signal?: AbortSignal } = {}): Promise<Spoken> {
  const model = voice.engine === 'espeak' ? 'espeak-ng' : voice.model;
  const perMillion = voice.engine === 'espeak' ? 0 : speechPrice(voice.model, voice.usdPerMillionCharacters);
  return metered({
    sessionId,
    backend: voice.engine === 'espeak' ? 'espeak' : 'text_to_speech',
    model,
    worstUsd: (perMillion * Math.min(text.length, 4_096)) / 1_000_000,
    run: () => speak(voice, text, format, options),
    cost: (spoken) => (perMillion * spoken.characters) / 1_000_000,
  });
}
