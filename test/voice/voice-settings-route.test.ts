// Settings › Voice over REST (issue 76 §1): the speech server saved with its key sealed and never
// sent back; *Test* uses the stored key when none is typed, and says in the server's words what is
// wrong; a bad language or an unknown field is a 400; null turns voice notes' hearing off. The voice
// for replies (§4) likewise: espeak-ng or a speech server, *Test* answering with audio to play.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as settingsRoute from '@/app/api/voice-settings/route';
import * as testRoute from '@/app/api/voice-settings/test/route';
import * as detectRoute from '@/app/api/voice-settings/detect/route';
import { getDb } from '@/lib/store/db';
import { speechVoice, transcriptionServer } from '@/lib/voice/voice-settings';
import { hear, startSpeechServer, type SpeechServer } from '@/test/fakes/speech-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let speech: SpeechServer;
beforeAll(async () => {
  speech = await startSpeechServer({ apiKey: 'sk-voice-secret' });
});
afterAll(() => speech.close());

const request = (method: string, body?: unknown) => new Request('http://localhost:3000/api/voice-settings', { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
const json = async (response: Response | Promise<Response>) => {
  const answer = await response;
  return { status: answer.status, body: (await answer.json()) as Record<string, any> };
};

describe('Settings › Voice', () => {
  it('keeps the key sealed and never sends it back; Test uses it when none is typed', async () => {
    expect((await json(settingsRoute.GET(request('GET'), {}))).body).toEqual({ transcription: null, speech: null });
    const saved = await json(settingsRoute.PUT(request('PUT', { transcription: { endpoint: speech.url, model: 'whisper-1', language: 'en', api_key: 'sk-voice-secret' } }), {}));
    expect(saved).toEqual({ status: 200, body: { transcription: { endpoint: speech.url, model: 'whisper-1', language: 'en', api_key_set: true, usd_per_minute: null }, speech: null } });
    const row = await (await getDb()).setting.findUnique({ where: { key: 'voice' } });
    expect(row!.value).not.toContain('sk-voice-secret');
    expect((await transcriptionServer())?.apiKey).toBe('sk-voice-secret');

    expect((await json(testRoute.POST(request('POST', { transcription: { endpoint: speech.url, model: 'whisper-1' } }), {}))).body).toMatchObject({ ok: true, latency_ms: expect.any(Number) });
    expect(speech.received.at(-1)).toMatchObject({ authorization: 'Bearer sk-voice-secret', filename: 'test.wav', type: 'audio/wav' });
    expect((await json(testRoute.POST(request('POST', { transcription: { endpoint: speech.url, model: 'whisper-1', api_key: 'sk-wrong' } }), {}))).body).toEqual({ ok: false, error: expect.stringContaining('Incorrect API key provided') });
    expect((await json(testRoute.POST(request('POST', { transcription: { endpoint: 'http://127.0.0.1:9/v1', model: 'whisper-1' } }), {}))).body).toEqual({ ok: false, error: expect.stringContaining('did not answer') });

    // Saved again without a key: the stored one stays.
    await settingsRoute.PUT(request('PUT', { transcription: { endpoint: speech.url, model: 'whisper-large' } }), {});
    expect(await transcriptionServer()).toEqual({ endpoint: speech.url, model: 'whisper-large', apiKey: 'sk-voice-secret' });
  });

  it('finds a speech server on the addresses it is told to look at (speaches lists its models); nothing where none answers', async () => {
    const saved = process.env.AGENTCSD_SPEECH_URLS;
    process.env.AGENTCSD_SPEECH_URLS = `${speech.url},http://127.0.0.1:9/v1`;
    try {
      expect((await json(detectRoute.GET(request('GET'), {}))).body).toEqual({ found: [{ name: 'speaches', endpoint: speech.url, model: 'Systran/faster-whisper-small' }] });
      process.env.AGENTCSD_SPEECH_URLS = 'http://127.0.0.1:9/v1';
      expect((await json(detectRoute.GET(request('GET'), {}))).body).toEqual({ found: [] });
    } finally {
      if (saved === undefined) delete process.env.AGENTCSD_SPEECH_URLS;
      else process.env.AGENTCSD_SPEECH_URLS = saved;
    }
  });

  it('refuses what is not a server, and turns off with null', async () => {
    expect((await json(settingsRoute.PUT(request('PUT', { transcription: { endpoint: 'not a url', model: 'x' } }), {}))).status).toBe(400);
    expect((await json(settingsRoute.PUT(request('PUT', { transcription: { endpoint: speech.url, model: 'x', language: 'english' } }), {}))).body.error.message).toContain('two-letter language code');
    expect((await json(settingsRoute.PUT(request('PUT', { transcription: { endpoint: speech.url, model: 'x' }, tts: true }), {}))).status).toBe(400);
    expect((await json(settingsRoute.PUT(request('PUT', {}), {}))).status).toBe(400);
    expect((await json(settingsRoute.PUT(request('PUT', { transcription: null }), {}))).body).toEqual({ transcription: null, speech: null });
    expect(await transcriptionServer()).toBeNull();
  });
});

describe('Settings › Voice › Voice for replies', () => {
  it('a speech server: saved with its key sealed and a price; Test says a sentence with the stored key and plays it', async () => {
    const saved = await json(settingsRoute.PUT(request('PUT', { speech: { engine: 'server', endpoint: speech.url, model: 'tts-1', voice: 'alloy', api_key: 'sk-voice-secret', usd_per_million_characters: 12 } }), {}));
    expect(saved.body.speech).toEqual({ engine: 'server', endpoint: speech.url, model: 'tts-1', voice: 'alloy', api_key_set: true, usd_per_million_characters: 12 });
    const row = await (await getDb()).setting.findUnique({ where: { key: 'voice' } });
    expect(row!.value).not.toContain('sk-voice-secret');
    expect(await speechVoice()).toEqual({ engine: 'server', endpoint: speech.url, model: 'tts-1', voice: 'alloy', apiKey: 'sk-voice-secret', usdPerMillionCharacters: 12 });

    const tested = await json(testRoute.POST(request('POST', { speech: { engine: 'server', endpoint: speech.url, model: 'tts-1', voice: 'alloy' } }), {}));
    expect(tested.body).toMatchObject({ ok: true, latency_ms: expect.any(Number), audio: expect.stringMatching(/^data:audio\/mpeg;base64,/) });
    expect(speech.said.at(-1)).toMatchObject({ model: 'tts-1', voice: 'alloy', response_format: 'mp3', authorization: 'Bearer sk-voice-secret' });
    const audio = Buffer.from(String(tested.body.audio).split(',')[1]!, 'base64');
    expect((await hear(audio)).text).toMatch(/this is|hello|sound/);
    const wrongKey = await json(testRoute.POST(request('POST', { speech: { engine: 'server', endpoint: speech.url, model: 'tts-1', voice: 'alloy', api_key: 'sk-wrong' } }), {}));
    expect(wrongKey.body).toEqual({ ok: false, error: expect.stringContaining('Incorrect API key provided') });

    // The transcription server is left as it was; saved again without a key, the stored one stays.
    await settingsRoute.PUT(request('PUT', { speech: { engine: 'server', endpoint: speech.url, model: 'tts-1-hd', voice: 'nova' } }), {});
    expect(await speechVoice()).toMatchObject({ model: 'tts-1-hd', apiKey: 'sk-voice-secret' });
  });

  it('espeak-ng on this machine, Test in a voice it lacks, a voice name that is not one, and back to the browser’s', async () => {
    expect((await json(settingsRoute.PUT(request('PUT', { speech: { engine: 'espeak', voice: 'en-us' } }), {}))).body.speech).toEqual({ engine: 'espeak', voice: 'en-us' });
    expect((await json(testRoute.POST(request('POST', { speech: { engine: 'espeak', voice: 'en-us' } }), {}))).body).toMatchObject({ ok: true, audio: expect.stringMatching(/^data:audio\/mpeg;base64,/) });
    expect((await json(testRoute.POST(request('POST', { speech: { engine: 'espeak', voice: 'xx-nowhere' } }), {}))).body).toEqual({ ok: false, error: expect.stringContaining('espeak-ng has no voice "xx-nowhere"') });
    const hostile = await json(settingsRoute.PUT(request('PUT', { speech: { engine: 'espeak', voice: '--stdout /etc/passwd' } }), {}));
    expect(hostile).toMatchObject({ status: 400, body: { error: { code: 'validation_failed', message: expect.stringContaining('espeak-ng voice name') } } });
    expect((await json(settingsRoute.PUT(request('PUT', { speech: { engine: 'server', endpoint: speech.url, model: 'tts-1' } }), {}))).status).toBe(400);
    expect((await json(settingsRoute.PUT(request('PUT', { speech: null }), {}))).body.speech).toBeNull();
    expect(await speechVoice()).toBeNull();
  });
});
