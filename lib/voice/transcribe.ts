// Speech to text on an OpenAI-compatible server (issue 76 §1): `POST {base}/audio/transcriptions`,
// multipart (file, model, response_format=json, language), as OpenAI's API, speaches and
// whisper.cpp's server take it. The audio goes as it came (Whisper servers read ogg/opus, mp3, m4a,
// webm and wav); a refusal or a dead server is said in one line, never a silent empty text.
import { normaliseBaseURL } from '@/lib/backends/openai-compatible-backend';
import { errorText } from '@/lib/errors/error-text';
import { inSpan } from '@/lib/telemetry/traces';
import type { TranscriptionServer } from './voice-settings';

/** OpenAI's own cap for one file; a voice note is far smaller. */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

export class TranscriptionError extends Error {
  constructor(
    readonly kind: 'too_large' | 'refused' | 'unreachable' | 'empty',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TranscriptionError';
  }
}

export interface Transcript {
  text: string;
  /** Seconds of audio, when the server says (verbose_json); for the allowances. */
  seconds?: number;
}

/** One recording heard, as a `transcribe <model>` span (the traces show where the time went). */
export function transcribe(server: TranscriptionServer, audio: { bytes: Uint8Array; filename: string; mimeType: string }, options: { signal?: AbortSignal } = {}): Promise<Transcript> {
  const host = URL.canParse(server.endpoint) ? new URL(server.endpoint).host : server.endpoint;
  return inSpan({ kind: 'speech', operation: 'transcribe', model: server.model, server: host, bytes: audio.bytes.byteLength }, () => heardOn(server, audio, options));
}

async function heardOn(server: TranscriptionServer, audio: { bytes: Uint8Array; filename: string; mimeType: string }, options: { signal?: AbortSignal }): Promise<Transcript> {
  if (audio.bytes.byteLength > MAX_AUDIO_BYTES) throw new TranscriptionError('too_large', `The recording is ${Math.round(audio.bytes.byteLength / 1024 / 1024)} MiB: at most 25 MiB is transcribed`);
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(audio.bytes)], { type: audio.mimeType }), audio.filename);
  form.set('model', server.model);
  form.set('response_format', 'json');
  if (server.language) form.set('language', server.language);
  const url = `${normaliseBaseURL(server.endpoint)}/audio/transcriptions`;
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', body: form, headers: server.apiKey ? { authorization: `Bearer ${server.apiKey}` } : {}, signal: options.signal ?? AbortSignal.timeout(120_000) });
  } catch (error) {
    throw new TranscriptionError('unreachable', `The speech server at ${new URL(url).host} did not answer: ${errorText(error)}`, { cause: error });
  }
  const body = await response.text();
  if (!response.ok) throw new TranscriptionError('refused', `The speech server refused the recording (${response.status}): ${serverMessage(body)}`);
  let parsed: { text?: unknown; duration?: unknown };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch (error) {
    throw new TranscriptionError('refused', `The speech server's answer was not JSON: ${body.slice(0, 120)}`, { cause: error });
  }
  const text = typeof parsed.text === 'string' ? parsed.text.trim() : '';
  if (!text) throw new TranscriptionError('empty', 'No words were heard in the recording');
  return { text, ...(typeof parsed.duration === 'number' && { seconds: parsed.duration }) };
}

/** OpenAI's `{error: {message}}` (FastAPI's `{detail}`), or the body's first words. */
export function serverMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; detail?: string };
    const message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.detail);
    if (message) return message.slice(0, 300);
  } catch {
    // not JSON: its text below
  }
  return body.slice(0, 300) || 'no reason given';
}

/** A second of silence as 16 kHz mono WAV: what *Test* sends (any speech server decodes it). */
export function silentWav(seconds = 1): Uint8Array {
  const samples = Math.round(16_000 * seconds);
  const bytes = Buffer.alloc(44 + samples * 2);
  bytes.write('RIFF', 0);
  bytes.writeUInt32LE(36 + samples * 2, 4);
  bytes.write('WAVEfmt ', 8);
  bytes.writeUInt32LE(16, 16);
  bytes.writeUInt16LE(1, 20); // PCM
  bytes.writeUInt16LE(1, 22); // mono
  bytes.writeUInt32LE(16_000, 24);
  bytes.writeUInt32LE(32_000, 28);
  bytes.writeUInt16LE(2, 32);
  bytes.writeUInt16LE(16, 34);
  bytes.write('data', 36);
  bytes.writeUInt32LE(samples * 2, 40);
  return new Uint8Array(bytes);
}

/** *Test* for Settings › Voice: the server heard a second of silence (words or none) — or why not. */
export async function testTranscription(server: TranscriptionServer): Promise<{ ok: true; latency_ms: number } | { ok: false; error: string }> {
  const started = performance.now();
  try {
    await transcribe(server, { bytes: silentWav(), filename: 'test.wav', mimeType: 'audio/wav' }, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    if (!(error instanceof TranscriptionError) || error.kind !== 'empty') return { ok: false, error: errorText(error) };
  }
  return { ok: true, latency_ms: Math.round(performance.now() - started) };
}
