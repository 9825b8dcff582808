// Text to speech (issue 76 §4) with real engines: espeak-ng on this machine says a reply as MP3 for
// the page and Ogg/Opus for a chat's voice note, and pocketsphinx hears its words back; an
// OpenAI-compatible /v1/audio/speech (the loopback fake says it with espeak-ng) is sent what OpenAI's
// API takes. Words that look like options reach espeak-ng as words (its stdin, never its arguments),
// a refusal and a dead server are said in their own words, and a recording's length is read right.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioLength } from '@/lib/voice/audio-length';
import { MAX_SPOKEN_CHARACTERS, sayable, speak, SpeechError } from '@/lib/voice/speak';
import { hear, spokenAudio, startSpeechServer, type SpeechServer } from '@/test/fakes/speech-server';

let speech: SpeechServer;
beforeAll(async () => {
  speech = await startSpeechServer({ apiKey: 'sk-voice' });
});
afterAll(() => speech.close());

const onServer = { engine: 'server' as const, endpoint: '', model: 'kokoro', voice: 'af_heart', apiKey: 'sk-voice' };

describe('espeak-ng on this machine', () => {
  it('says a reply as MP3 for the page and as Ogg/Opus for a voice note, heard back as its words', async () => {
    const page = await speak({ engine: 'espeak', voice: 'en-us' }, 'What is the weather like today', 'mp3');
    expect(page.mimeType).toBe('audio/mpeg');
    expect(page.bytes.subarray(0, 3).toString('latin1') === 'ID3' || (page.bytes[0] === 0xff && (page.bytes[1]! & 0xe0) === 0xe0)).toBe(true);
    expect((await hear(page.bytes)).text).toMatch(/weather/);
    const note = await speak({ engine: 'espeak' }, 'What is the weather like today', 'opus');
    expect(note.mimeType).toBe('audio/ogg');
    expect(note.bytes.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(note.bytes.subarray(28, 36).toString('latin1')).toBe('OpusHead');
    expect(note.characters).toBe('What is the weather like today'.length);
    expect(audioLength(note.bytes)).toMatchObject({ exact: true, seconds: expect.closeTo((await hear(note.bytes)).seconds, 0) });
  });

  it('takes words that look like options as words, and refuses a voice it does not have', async () => {
    const spoken = await speak({ engine: 'espeak' }, '--version -w /tmp/owned.wav hello', 'opus');
    expect(spoken.bytes.byteLength).toBeGreaterThan(1_000);
    await expect(speak({ engine: 'espeak', voice: 'no-such-voice' }, 'hello', 'mp3')).rejects.toMatchObject({ kind: 'refused', message: expect.stringContaining('espeak-ng has no voice "no-such-voice"') });
    expect((await speak({ engine: 'espeak', voice: 'en-us+f3' }, 'hello', 'mp3')).bytes.byteLength).toBeGreaterThan(1_000);
    await expect(speak({ engine: 'espeak', voice: 'en+nobody' }, 'hello', 'mp3')).rejects.toMatchObject({ kind: 'refused' });
    await expect(speak({ engine: 'espeak' }, '   ', 'mp3')).rejects.toMatchObject({ kind: 'empty' });
  });

  it('cuts a reply past the cap after its last sentence', () => {
    const long = `${'This is one sentence of a long reply. '.repeat(200)}`;
    const said = sayable(long);
    expect(said.length).toBeLessThanOrEqual(MAX_SPOKEN_CHARACTERS);
    expect(said.endsWith('reply.')).toBe(true);
    expect(sayable('  short\n\nand   sweet ')).toBe('short and sweet');
  });
});

describe('a speech server (/v1/audio/speech)', () => {
  it('is sent the model, the words, the voice and the format, with its key', async () => {
    const spoken = await speak({ ...onServer, endpoint: speech.url }, 'Tell me a story about a dog', 'opus');
    expect(speech.said.at(-1)).toEqual({ model: 'kokoro', input: 'Tell me a story about a dog', voice: 'af_heart', response_format: 'opus', authorization: 'Bearer sk-voice' });
    expect(spoken).toMatchObject({ mimeType: 'audio/ogg', characters: 27 });
    expect((await hear(spoken.bytes)).text).toMatch(/story|dog/);
    // A bare host gets /v1, as the transcription server's address does.
    await speak({ ...onServer, endpoint: speech.url.replace(/\/v1$/, '') }, 'hello', 'mp3');
    expect(speech.said.at(-1)).toMatchObject({ response_format: 'mp3' });
  });

  it('says what the server refused, and that it is not there', async () => {
    await expect(speak({ ...onServer, endpoint: speech.url, apiKey: 'sk-wrong' }, 'hello', 'mp3')).rejects.toMatchObject({ kind: 'refused', message: expect.stringContaining('(401): Incorrect API key provided') });
    speech.failNext(503, 'the voice is loading');
    await expect(speak({ ...onServer, endpoint: speech.url }, 'hello', 'mp3')).rejects.toMatchObject({ message: expect.stringContaining('(503): the voice is loading') });
    const gone = await speak({ ...onServer, endpoint: 'http://127.0.0.1:9/v1' }, 'hello', 'mp3').catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(SpeechError);
    expect(gone).toMatchObject({ kind: 'unreachable', message: expect.stringContaining('127.0.0.1:9') });
  });
});

describe('how long a recording is', () => {
  it('reads a WAV and an Ogg/Opus exactly, and estimates other containers from their size', async () => {
    const wav = await spokenAudio('one two three four five', 'wav');
    const ogg = await spokenAudio('one two three four five', 'ogg');
    const fromWav = audioLength(wav);
    expect(fromWav.exact).toBe(true);
    expect(audioLength(ogg).exact).toBe(true);
    expect(Math.abs(audioLength(ogg).seconds - fromWav.seconds)).toBeLessThan(0.1);
    const webm = await spokenAudio('one two three four five', 'webm');
    expect(audioLength(webm)).toEqual({ exact: false, seconds: webm.byteLength / 2_000 });
    expect(audioLength(webm, { worst: true }).seconds).toBe(webm.byteLength / 1_000);
    expect(audioLength(new Uint8Array(0))).toEqual({ exact: false, seconds: 0 });
  });
});
