// What speech costs (issue 76 §5): a minute heard, a million characters said. The owner's price in
// Settings › Voice counts first; else the hosted models’ published prices (OpenAI, Groq); a
// server of one's own costs nothing unless a price is typed for it.

/** Dollars per minute of audio transcribed, by model. */
const PER_MINUTE: Record<string, number> = {
  'whisper-1': 0.006,
  'gpt-4o-transcribe': 0.006,
  'gpt-4o-mini-transcribe': 0.003,
  'whisper-large-v3': 0.111 / 60, // Groq: $0.111 an hour
  'whisper-large-v3-turbo': 0.04 / 60,
  'distil-whisper-large-v3-en': 0.02 / 60,
};

/** Dollars per million characters said, by model. */
const PER_MILLION_CHARACTERS: Record<string, number> = {
  'tts-1': 15,
  'tts-1-hd': 30,
};

export function transcriptionPrice(model: string, typed?: number): number {
  return typed ?? PER_MINUTE[model] ?? 0;
}

export function speechPrice(model: string, typed?: number): number {
  return typed ?? PER_MILLION_CHARACTERS[model] ?? 0;
}
