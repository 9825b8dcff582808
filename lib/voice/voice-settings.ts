// Settings › Voice (issue 76 §1): the speech-to-text server, configured once like a layer's model —
// any OpenAI-compatible `/v1/audio/transcriptions` (speaches/faster-whisper, whisper.cpp's server,
// LocalAI, Groq, OpenAI). One JSON row `voice`; its key sealed at rest and never sent back.
import { z } from 'zod';
import { open, seal } from '@/lib/store/secret-box';
import { readJsonSetting, writeJsonSetting } from '@/lib/store/settings-repository';

const KEY = 'voice';
const BOUND = 'settings:voice:transcription';

export const transcriptionInputSchema = z
  .object({
    /** The server's base, `…/v1` (a bare host gets `/v1`). */
    endpoint: z.string().trim().url().max(500),
    model: z.string().trim().min(1).max(200),
    /** ISO-639-1, or absent to let the server detect it. */
    language: z.string().trim().regex(/^[a-z]{2}$/, 'a two-letter language code (en, es, …)').optional(),
    /** Typed to change it; absent keeps the stored one; '' clears it. */
    api_key: z.string().max(500).optional(),
  })
  .strict();

const storedSchema = z.object({
  transcription: z.object({ endpoint: z.string(), model: z.string(), language: z.string().optional(), api_key_sealed: z.string().optional() }).nullable(),
});
type Stored = z.infer<typeof storedSchema>;

export interface TranscriptionServer {
  endpoint: string;
  model: string;
  language?: string;
  apiKey?: string;
}

function stored(): Promise<Stored> {
  return readJsonSetting(KEY, storedSchema, 'voice settings', { transcription: null });
}

/** The server to transcribe with, its key opened; null when none is set. */
export async function transcriptionServer(): Promise<TranscriptionServer | null> {
  const { transcription } = await stored();
  if (!transcription) return null;
  const apiKey = transcription.api_key_sealed ? open(transcription.api_key_sealed, BOUND) ?? undefined : undefined;
  return { endpoint: transcription.endpoint, model: transcription.model, ...(transcription.language && { language: transcription.language }), ...(apiKey && { apiKey }) };
}

/** What the settings page shows: the server without its key (whether one is kept). */
export async function publicVoiceSettings(): Promise<{ transcription: { endpoint: string; model: string; language: string | null; api_key_set: boolean } | null }> {
  const { transcription } = await stored();
  return { transcription: transcription && { endpoint: transcription.endpoint, model: transcription.model, language: transcription.language ?? null, api_key_set: Boolean(transcription.api_key_sealed) } };
}

/** Saves the server (null: voice notes are not transcribed); a key left out keeps the stored one. */
export async function saveTranscriptionServer(input: z.infer<typeof transcriptionInputSchema> | null): Promise<void> {
  if (!input) {
    await writeJsonSetting(KEY, { transcription: null });
    return;
  }
  const before = (await stored()).transcription;
  const api_key_sealed = input.api_key === undefined ? before?.api_key_sealed : input.api_key === '' ? undefined : seal(input.api_key, BOUND);
  await writeJsonSetting(KEY, { transcription: { endpoint: input.endpoint, model: input.model, ...(input.language && { language: input.language }), ...(api_key_sealed && { api_key_sealed }) } });
}
