// A voice note, measured (issue 76): on the shared chat bench (chat-bench.ts) with a Telegram chat
// against the fake Bot API, the same words sent as a voice note (espeak-ng's Ogg/Opus, heard by
// the loopback speech server running ffmpeg and pocketsphinx) and typed, interleaved. The time
// from sending to the reply's first message on the chat, and what the voice path adds beyond the
// speech engine's own time (getFile, the download, the upload checks, the multipart call).
import { saveTranscriptionServer } from '@/lib/voice/voice-settings';
import { startFakeTelegram } from '@/test/fakes/fake-telegram-server';
import { spokenAudio, startSpeechServer } from '@/test/fakes/speech-server';
import { startChatBench, whenFound } from './chat-bench';
import { median } from './stats';

export interface VoiceResult {
  samples: number;
  typedMs: number[];
  voiceMs: number[];
  engineMs: number[];
}

export async function benchVoice(options: { samples: number }): Promise<VoiceResult> {
  const telegram = await startFakeTelegram();
  const speech = await startSpeechServer();
  const user = { id: 7070, username: 'speaker' };
  const bench = await startChatBench({ kind: 'telegram', config: { token: telegram.token, api_root: telegram.apiRoot }, pair: () => void telegram.userWrites(user, 'let me in') });
  await saveTranscriptionServer({ endpoint: speech.url, model: 'whisper-1', language: 'en' });
  const words = 'what is the weather like today';
  const audio = await spokenAudio(words, 'ogg');
  const replies = () => telegram.sent.filter((message) => message.chatId === String(user.id) && message.text.startsWith('You said:')).length;
  const result: VoiceResult = { samples: options.samples, typedMs: [], voiceMs: [], engineMs: [] };
  for (let index = 0; index < options.samples * 2; index++) {
    const voice = index % 2 === 1;
    const before = replies();
    const started = performance.now();
    if (voice) telegram.userSpeaks(user, { bytes: audio });
    else telegram.userWrites(user, `${words} ${index}`);
    const arrived = await whenFound(() => (replies() > before ? performance.now() : undefined));
    (voice ? result.voiceMs : result.typedMs).push(arrived - started);
    // Let the reply finish (its edits) and the Subconscious's cycle pass before the next one.
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  result.engineMs = speech.engineMs.slice(-options.samples);
  await bench.close();
  await speech.close();
  await telegram.close();
  return result;
}

export function voiceTable(result: VoiceResult): string {
  const typed = median(result.typedMs);
  const voice = median(result.voiceMs);
  const engine = median(result.engineMs);
  return [
    '| sent as | replies | first reply message median ms |',
    '| --- | --- | --- |',
    `| typed | ${result.typedMs.length} | ${typed.toFixed(0)} |`,
    `| a voice note (heard by pocketsphinx) | ${result.voiceMs.length} | ${voice.toFixed(0)} |`,
    '',
    `The speech engine's own time (ffmpeg + pocketsphinx, median): ${engine.toFixed(0)} ms. The voice path adds ${(voice - typed).toFixed(0)} ms over typing, of which ${Math.max(0, voice - typed - engine).toFixed(0)} ms is ours (getFile, the download, the upload checks, the multipart call).`,
  ].join('\n');
}
