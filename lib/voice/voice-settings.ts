// Settings › Voice (issue 76 §1, §4): the speech-to-text server, configured once like a layer's
// model — any OpenAI-compatible `/v1/audio/transcriptions` (speaches/faster-whisper, whisper.cpp's
// server, LocalAI, Groq, OpenAI) — and the voice replies are read in: the browser's own (none set
// here), Debian's espeak-ng on this machine, or an OpenAI-compatible `/v1/audio/speech` (Kokoro-
// FastAPI, speaches, LocalAI, OpenAI). One JSON row `voice`; keys sealed at rest, never sent back.
import { z } from 'zod';
import { open, seal } from '@/lib/store/secret-box';
import { readJsonSetting, writeJsonSetting } from '@/lib/store/settings-repository';

const KEY = 'voice';
const BOUND = { transcription: 'settings:voice:transcription', speech: 'settings:voice:speech' } as const;

const endpointSchema = z.string().trim().url().max(500);
/** Typed to change it; absent keeps the stored one; '' clears it. */
const apiKeySchema = z.string().max(500).optional();

export const transcriptionInputSchema = z
  .object({
    /** The server's base, `…/v1` (a bare host gets `/v1`). */
    endpoint: endpointSchema,
    model: z.string().trim().min(1).max(200),
    /** ISO-639-1, or absent to let the server detect it. */
    language: z.string().trim().regex(/^[a-z]{2}$/, 'a two-letter language code (en, es, …)').optional(),
    api_key: apiKeySchema,
    /** What a minute of audio costs there (absent: the known price of the model, or nothing). */
    usd_per_minute: z.number().min(0).max(10).optional(),
  })
  .strict();

export const speechInputSchema = z.discriminatedUnion('engine', [
  z.object({ engine: z.literal('espeak'), voice: z.string().trim().regex(/^[A-Za-z0-9][A-Za-z0-9_+-]{0,39}$/, 'an espeak-ng voice name (en, en-us, es, …)').optional() }).strict(),
  z
    .object({
      engine: z.literal('server'),
      endpoint: endpointSchema,
      model: z.string().trim().min(1).max(200),
      voice: z.string().trim().min(1).max(100),
      api_key: apiKeySchema,
      /** What a million characters cost there (absent: the known price of the model, or nothing). */
      usd_per_million_characters: z.number().min(0).max(1_000).optional(),
    })
    .strict(),
]);

export type TranscriptionInput = z.infer<typeof transcriptionInputSchema>;
export type SpeechInput = z.infer<typeof speechInputSchema>;

const storedSchema = z.object({
  transcription: z.object({ endpoint: z.string(), model: z.string(), language: z.string().optional(), api_key_sealed: z.string().optional(), usd_per_minute: z.number().optional() }).nullable(),
  speech: z
    .union([
      z.object({ engine: z.literal('espeak'), voice: z.string().optional() }),
      z.object({ engine: z.literal('server'), endpoint: z.string(), model: z.string(), voice: z.string(), api_key_sealed: z.string().optional(), usd_per_million_characters: z.number().optional() }),
    ])
    .nullable()
    .default(null),
});
type Stored = z.infer<typeof storedSchema>;

export interface TranscriptionServer {
  endpoint: string;
  model: string;
  language?: string;
  apiKey?: string;
  usdPerMinute?: number;
}

export type SpeechVoice = { engine: 'espeak'; voice?: string } | { engine: 'server'; endpoint: string; model: string; voice: string; apiKey?: string; usdPerMillionCharacters?: number };

function stored(): Promise<Stored> {
  return readJsonSetting(KEY, storedSchema, 'voice settings', { transcription: null, speech: null });
}

const opened = (sealed: string | undefined, bound: string) => (sealed ? (open(sealed, bound) ?? undefined) : undefined);

/** The server to transcribe with, its key opened; null when none is set. */
export async function transcriptionServer(): Promise<TranscriptionServer | null> {
  const { transcription } = await stored();
  if (!transcription) return null;
  const apiKey = opened(transcription.api_key_sealed, BOUND.transcription);
  return {
    endpoint: transcription.endpoint,
    model: transcription.model,
    ...(transcription.language && { language: transcription.language }),
    ...(apiKey && { apiKey }),
    ...(transcription.usd_per_minute !== undefined && { usdPerMinute: transcription.usd_per_minute }),
  };
}

/** The voice replies are read in on the server, its key opened; null: the browser's own voices. */
export async function speechVoice(): Promise<SpeechVoice | null> {
  const { speech } = await stored();
  if (!speech) return null;
  if (speech.engine === 'espeak') return { engine: 'espeak', ...(speech.voice && { voice: speech.voice }) };
  const apiKey = opened(speech.api_key_sealed, BOUND.speech);
  return {
    engine: 'server',
    endpoint: speech.endpoint,
    model: speech.model,
    voice: speech.voice,
    ...(apiKey && { apiKey }),
    ...(speech.usd_per_million_characters !== undefined && { usdPerMillionCharacters: speech.usd_per_million_characters }),
  };
}

export interface PublicVoiceSettings {
  transcription: { endpoint: string; model: string; language: string | null; api_key_set: boolean; usd_per_minute: number | null } | null;
  speech: { engine: 'espeak'; voice: string | null } | { engine: 'server'; endpoint: string; model: string; voice: string; api_key_set: boolean; usd_per_million_characters: number | null } | null;
}

/** What the settings page shows: the servers without their keys (whether one is kept). */
export async function publicVoiceSettings(): Promise<PublicVoiceSettings> {
  const { transcription, speech } = await stored();
  return {
    transcription: transcription && { endpoint: transcription.endpoint, model: transcription.model, language: transcription.language ?? null, api_key_set: Boolean(transcription.api_key_sealed), usd_per_minute: transcription.usd_per_minute ?? null },
    speech:
      speech &&
      (speech.engine === 'espeak'
        ? { engine: 'espeak', voice: speech.voice ?? null }
        : { engine: 'server', endpoint: speech.endpoint, model: speech.model, voice: speech.voice, api_key_set: Boolean(speech.api_key_sealed), usd_per_million_characters: speech.usd_per_million_characters ?? null }),
  };
}

/** The key to keep: a typed one sealed, '' none, absent the stored one. */
function keptKey(typed: string | undefined, before: string | undefined, bound: string): string | undefined {
  return typed === undefined ? before : typed === '' ? undefined : seal(typed, bound);
}

/** Saves the transcription server (null: voice notes are not transcribed); a key left out keeps the stored one. */
export async function saveTranscriptionServer(input: TranscriptionInput | null): Promise<void> {
  const before = await stored();
  if (!input) return writeJsonSetting(KEY, { ...before, transcription: null });
  const api_key_sealed = keptKey(input.api_key, before.transcription?.api_key_sealed, BOUND.transcription);
  await writeJsonSetting(KEY, {
    ...before,
    transcription: { endpoint: input.endpoint, model: input.model, ...(input.language && { language: input.language }), ...(api_key_sealed && { api_key_sealed }), ...(input.usd_per_minute !== undefined && { usd_per_minute: input.usd_per_minute }) },
  });
}

/** Saves the voice replies are read in (null: the browser's own); a key left out keeps the stored one. */
export async function saveSpeechVoice(input: SpeechInput | null): Promise<void> {
  const before = await stored();
  if (!input || input.engine === 'espeak') return writeJsonSetting(KEY, { ...before, speech: input && { engine: 'espeak', ...(input.voice && { voice: input.voice }) } });
  const api_key_sealed = keptKey(input.api_key, before.speech?.engine === 'server' ? before.speech.api_key_sealed : undefined, BOUND.speech);
  await writeJsonSetting(KEY, {
    ...before,
    speech: { engine: 'server', endpoint: input.endpoint, model: input.model, voice: input.voice, ...(api_key_sealed && { api_key_sealed }), ...(input.usd_per_million_characters !== undefined && { usd_per_million_characters: input.usd_per_million_characters }) },
  });
}

/** A typed speech setting made usable for *Test*: its key, or the stored one when none is typed. */
export async function typedSpeechVoice(input: SpeechInput): Promise<SpeechVoice> {
  if (input.engine === 'espeak') return { engine: 'espeak', ...(input.voice && { voice: input.voice }) };
  const stored = await speechVoice();
  const apiKey = input.api_key === undefined ? (stored?.engine === 'server' ? stored.apiKey : undefined) : input.api_key || undefined;
  return { engine: 'server', endpoint: input.endpoint, model: input.model, voice: input.voice, ...(apiKey && { apiKey }) };
}
