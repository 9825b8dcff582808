// Speech to text through an OpenAI-compatible server (issue 76 §1), with real speech: espeak-ng says
// the words, a loopback server decodes and hears them with ffmpeg and pocketsphinx. The client sends
// the upload as OpenAI's API takes it; a refusal, a dead server, a recording past the cap and one
// with no words each end in their own clear error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AUDIO_BYTES, transcribe, TranscriptionError } from '@/lib/voice/transcribe';
import { spokenAudio, startSpeechServer, type SpeechServer } from '@/test/fakes/speech-server';

let speech: SpeechServer;
beforeAll(async () => {
  speech = await startSpeechServer({ apiKey: 'sk-speech' });
});
afterAll(() => speech.close());

const server = () => ({ endpoint: speech.url, model: 'Systran/faster-whisper-small', language: 'en', apiKey: 'sk-speech' });

describe('transcribing a recording', () => {
  it('hears a Telegram-like voice note (ogg/opus) and a browser recording (webm), sent as OpenAI takes them', async () => {
    const voiceNote = await transcribe(server(), { bytes: await spokenAudio('what is the weather like today', 'ogg'), filename: 'voice.ogg', mimeType: 'audio/ogg' });
    expect(voiceNote.text.toLowerCase()).toContain('weather');
    const recorded = await transcribe(server(), { bytes: await spokenAudio('tell me a story about a dog', 'webm'), filename: 'recording.webm', mimeType: 'audio/webm' });
    expect(recorded.text.toLowerCase()).toContain('story');
    expect(speech.received.at(-1)).toMatchObject({ model: 'Systran/faster-whisper-small', response_format: 'json', language: 'en', filename: 'recording.webm', type: 'audio/webm', authorization: 'Bearer sk-speech' });
  });

  it('says what the server refused, and that a server is not there', async () => {
    const corrupt = transcribe(server(), { bytes: new TextEncoder().encode('not audio at all'), filename: 'voice.ogg', mimeType: 'audio/ogg' });
    await expect(corrupt).rejects.toMatchObject({ kind: 'refused', message: expect.stringContaining('Invalid file format') });
    const wrongKey = transcribe({ ...server(), apiKey: 'sk-wrong' }, { bytes: await spokenAudio('hello'), filename: 'a.wav', mimeType: 'audio/wav' });
    await expect(wrongKey).rejects.toMatchObject({ kind: 'refused', message: expect.stringContaining('(401): Incorrect API key provided') });
    const gone = transcribe({ ...server(), endpoint: 'http://127.0.0.1:9/v1' }, { bytes: await spokenAudio('hello'), filename: 'a.wav', mimeType: 'audio/wav' });
    await expect(gone).rejects.toMatchObject({ kind: 'unreachable' });
  });

  it('refuses a recording past the cap before sending it, and one with no words in it', async () => {
    const before = speech.received.length;
    await expect(transcribe(server(), { bytes: new Uint8Array(MAX_AUDIO_BYTES + 1), filename: 'big.ogg', mimeType: 'audio/ogg' })).rejects.toBeInstanceOf(TranscriptionError);
    expect(speech.received.length).toBe(before);
    const silence = await transcribe(server(), { bytes: await spokenAudio(' ', 'wav'), filename: 'quiet.wav', mimeType: 'audio/wav' }).catch((error: TranscriptionError) => error);
    expect(silence).toMatchObject({ kind: 'empty' });
  });
});
