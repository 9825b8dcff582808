// Text to speech (issue 76 §4): a reply said in the voice Settings › Voice names — Debian's
// espeak-ng on this machine (offline; ffmpeg makes its WAV small), or an OpenAI-compatible
// `POST {base}/audio/speech` (Kokoro-FastAPI, speaches, LocalAI, OpenAI) — as MP3 for the page or
// Ogg/Opus for a chat's voice note. The words reach espeak-ng on its stdin, never its arguments.
import { spawn } from 'node:child_process';
import { normaliseBaseURL } from '@/lib/backends/openai-compatible-backend';
import { errorText } from '@/lib/errors/error-text';
import { inSpan } from '@/lib/telemetry/traces';
import { serverMessage } from './transcribe';
import type { SpeechVoice } from './voice-settings';

/** OpenAI's cap for one request; a longer reply is said up to its last sentence before it. */
export const MAX_SPOKEN_CHARACTERS = 4_096;

export type SpokenFormat = 'mp3' | 'opus';

export interface Spoken {
  bytes: Buffer;
  mimeType: 'audio/mpeg' | 'audio/ogg' | 'audio/wav';
  /** The characters said (what a price per character counts). */
  characters: number;
}

export class SpeechError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'refused' | 'unreachable' | 'empty',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SpeechError';
  }
}

/** The words to say: at most MAX_SPOKEN_CHARACTERS, cut after a sentence where one ends in time. */
export function sayable(text: string): string {
  const words = text.replace(/\s+/g, ' ').trim();
  if (words.length <= MAX_SPOKEN_CHARACTERS) return words;
  const cut = words.slice(0, MAX_SPOKEN_CHARACTERS);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('! '), cut.lastIndexOf('? '));
  return end > MAX_SPOKEN_CHARACTERS / 2 ? cut.slice(0, end + 1) : cut;
}

/** The words said, as a `speak <model>` span. */
export function speak(voice: SpeechVoice, text: string, format: SpokenFormat, options: { signal?: AbortSignal } = {}): Promise<Spoken> {
  const words = sayable(text);
  const model = voice.engine === 'espeak' ? 'espeak-ng' : voice.model;
  const server = voice.engine === 'espeak' ? 'localhost' : URL.canParse(voice.endpoint) ? new URL(voice.endpoint).host : voice.endpoint;
  return inSpan({ kind: 'speech', operation: 'speak', model, server, bytes: Buffer.byteLength(words) }, async () => {
    if (!words) throw new SpeechError('empty', 'There are no words to say');
    const signal = options.signal ?? AbortSignal.timeout(120_000);
    return voice.engine === 'espeak' ? espeak(voice.voice ?? 'en', words, format, signal) : onServer(voice, words, format, signal);
  });
}

async function onServer(voice: Extract<SpeechVoice, { engine: 'server' }>, words: string, format: SpokenFormat, signal: AbortSignal): Promise<Spoken> {
  const url = `${normaliseBaseURL(voice.endpoint)}/audio/speech`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(voice.apiKey && { authorization: `Bearer ${voice.apiKey}` }) },
      body: JSON.stringify({ model: voice.model, input: words, voice: voice.voice, response_format: format }),
      signal,
    });
  } catch (error) {
    throw new SpeechError('unreachable', `The speech server at ${new URL(url).host} did not answer: ${errorText(error)}`, { cause: error });
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  if (!response.ok) throw new SpeechError('refused', `The speech server refused to say it (${response.status}): ${serverMessage(bytes.toString('utf8'))}`);
  if (bytes.byteLength === 0) throw new SpeechError('empty', 'The speech server sent no audio');
  return { bytes, mimeType: format === 'mp3' ? 'audio/mpeg' : 'audio/ogg', characters: words.length };
}

/** Whether espeak-ng has this voice (a language, a voice's name or file; `+variant` after it), read off `--voices`: it would say an unknown one in its default voice. */
async function hasEspeakVoice(voiceName: string, signal: AbortSignal): Promise<boolean> {
  const [base = '', variant] = voiceName.toLowerCase().split('+');
  const listed = async (which: string) =>
    (await run('espeak-ng', [which], Buffer.alloc(0), signal, 'espeak-ng'))
      .toString('utf8')
      .split('\n')
      .slice(1)
      .flatMap((line) => {
        const [, language, , name, file] = line.trim().split(/\s+/);
        return [language, name, file, file?.split('/').pop()].filter((value): value is string => Boolean(value)).map((value) => value.toLowerCase());
      });
  if (!(await listed('--voices')).includes(base)) return false;
  return variant === undefined || (await listed('--voices=variant')).includes(variant);
}

async function espeak(voiceName: string, words: string, format: SpokenFormat, signal: AbortSignal): Promise<Spoken> {
  if (!(await hasEspeakVoice(voiceName, signal))) throw new SpeechError('refused', `espeak-ng has no voice "${voiceName}" (espeak-ng --voices lists them: en, en-us, es, de…)`);
  const wav = await run('espeak-ng', ['--stdout', '--stdin', '-b', '1', '-v', voiceName], Buffer.from(words, 'utf8'), signal, 'espeak-ng');
  if (wav.byteLength <= 44) throw new SpeechError('empty', 'espeak-ng said nothing');
  const encoder = format === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '48k', '-f', 'mp3'] : ['-c:a', 'libopus', '-b:a', '24k', '-f', 'ogg'];
  try {
    const bytes = await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'wav', '-i', 'pipe:0', '-ac', '1', ...encoder, 'pipe:1'], wav, signal, 'ffmpeg');
    return { bytes, mimeType: format === 'mp3' ? 'audio/mpeg' : 'audio/ogg', characters: words.length };
  } catch (error) {
    // No ffmpeg here: the page plays WAV all the same; a chat's voice note needs Ogg/Opus.
    if (format === 'mp3' && error instanceof SpeechError && error.kind === 'unavailable') return { bytes: wav, mimeType: 'audio/wav', characters: words.length };
    throw error;
  }
}

/** Largest output taken from a helper program (an hour of speech is far less). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Runs a fixed program with `input` on its stdin → its stdout; not installed → `unavailable`. */
function run(command: string, args: readonly string[], input: Buffer, signal: AbortSignal, name: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], signal, env: { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' } });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-600)));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new SpeechError('unavailable', `${name} is not installed on this machine (apt-get install ${name === 'ffmpeg' ? 'ffmpeg' : 'espeak-ng'})`, { cause: error }) : new SpeechError('refused', `${name} failed: ${errorText(error)}`, { cause: error })),
    );
    child.on('close', (code) => {
      if (code === 0 && size <= MAX_OUTPUT_BYTES) resolve(Buffer.concat(chunks));
      else reject(new SpeechError('refused', `${name} failed${code === null ? '' : ` (exit ${code})`}: ${stderr.trim() || 'no reason given'}`));
    });
    child.stdin.on('error', () => undefined); // it may exit before reading everything: its code says why
    child.stdin.end(input);
  });
}
