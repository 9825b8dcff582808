// Voice notes on Telegram (issue 76 §2), with real speech: espeak-ng's Ogg/Opus sent as a voice note
// through the fake Bot API (getFile, then the file), transcribed by a loopback speech server running
// pocketsphinx, stored as the person's message with the recording kept (audio, playable) and
// answered. No speech server, a server that refuses, and a note past the size cap each end in a
// clear word in the chat and a kept file — nothing reaches the model, nothing is lost.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { listBindings, listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { messagesToday } from '@/lib/store/people-repository';
import { readWholeSession } from '@/lib/store/messages-repository';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';
import { listUploads } from '@/lib/store/uploads-repository';
import { saveSpeechVoice, saveTranscriptionServer } from '@/lib/voice/voice-settings';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startFakeTelegram, type FakeTelegram } from '@/test/fakes/fake-telegram-server';
import { mindScript } from '@/test/fakes/mind-script';
import { spokenAudio, startSpeechServer, type SpeechServer } from '@/test/fakes/speech-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let telegram: FakeTelegram;
let speech: SpeechServer;
let orchestrator: Orchestrator;
let sessionId = '';
const channelId = randomUUID();
const ana = { id: 5151, username: 'ana' };

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });
const textsTo = () => telegram.sent.filter((message) => message.chatId === String(ana.id)).map((message) => message.text);

beforeAll(async () => {
  model = await startFakeOpenAIServer({ script: mindScript });
  telegram = await startFakeTelegram();
  speech = await startSpeechServer();
  await writeSettings({ ...(await readSettings()), models: { c_model: layer(), s_model: layer() } });
  const input = channelInputSchema.parse({ id: channelId, kind: 'telegram', name: 'phone', config: { token: telegram.token, api_root: telegram.apiRoot } });
  await saveChannel({ id: channelId, kind: 'telegram', name: input.name, enabled: true, config: mergeChannelConfig({ ...input, id: channelId }, null) });
  orchestrator = new Orchestrator({ channels: true, taskWorkingDelayMs: 0 });
  await orchestrator.start();
  const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
  sessionId = session.id;
  await vi.waitFor(async () => expect((await orchestrator.channels!.status(channelId)).state.kind).toBe('connected'), { timeout: 10_000 });
  telegram.userWrites(ana, 'hello');
  const [pairing] = await vi.waitFor(async () => {
    const open = await listOpenPairings(channelId, new Date());
    expect(open).toHaveLength(1);
    return open;
  }, { timeout: 10_000 });
  await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing!.code, session_id: session.id, role: 'trusted', share: true }));
});

afterAll(async () => {
  await orchestrator?.stop();
  await telegram?.close();
  await speech?.close();
  await model?.close();
});

const userMessages = async () => (await readWholeSession({ sessionId })).messages.filter((message) => message.tag === 'ED_user').map((message) => message.content);

describe('a voice note on Telegram', () => {
  it('without a speech server: the person is told how it gets heard, and the recording is kept', async () => {
    const before = textsTo().length;
    telegram.userSpeaks(ana, { bytes: await spokenAudio('what is the weather like today', 'ogg') });
    await expect.poll(() => textsTo().slice(before).join('\n'), { timeout: 15_000 }).toContain('Your voice note was not heard: voice notes are not heard here yet');
    expect(textsTo().at(-1)).toContain('It is kept with the conversation');
    expect((await listUploads(sessionId)).map((upload) => [upload.kind, upload.mimeType])).toEqual([['audio', 'audio/ogg']]);
    expect(await userMessages()).toEqual([]);
  });

  it('with one: heard, stored as her message with the recording beside it, and answered', async () => {
    await saveTranscriptionServer({ endpoint: speech.url, model: 'whisper-1', language: 'en' });
    telegram.userSpeaks(ana, { bytes: await spokenAudio('what is the weather like today', 'ogg') });
    await expect.poll(() => textsTo().join('\n'), { timeout: 20_000 }).toMatch(/You said: .*weather/);
    const [said] = await userMessages();
    expect(said).toMatch(/weather/);
    expect(telegram.fileRequests.slice(-2)).toEqual([expect.stringMatching(/^getFile /), expect.stringMatching(/^download voice\/file_\d+\.oga$/)]);
    const uploads = await listUploads(sessionId);
    expect(uploads).toHaveLength(2);
    expect(uploads[1]).toMatchObject({ kind: 'audio', mimeType: 'audio/ogg', messageId: expect.any(Number) });
    expect(speech.received.at(-1)).toMatchObject({ model: 'whisper-1', language: 'en', filename: 'voice-note.ogg', type: 'audio/ogg' });
    // One voice note is one of her messages today, as a typed one (the unheard one was none).
    const [binding] = await listBindings({ channelId });
    expect(await messagesToday(binding!.personId!, new Date())).toBe(1);
  });

  it('a server that refuses, a corrupt note and one past the size cap: each said in the chat, nothing sent to the model', async () => {
    const asked = model.requests.length;
    const before = textsTo().length;
    speech.failNext(503, 'the model is loading');
    telegram.userSpeaks(ana, { bytes: await spokenAudio('hello there', 'ogg') });
    await expect.poll(() => textsTo().slice(before).join('\n'), { timeout: 15_000 }).toContain('(503): the model is loading');
    telegram.userSpeaks(ana, { bytes: new TextEncoder().encode('OggS but not really audio') });
    await expect.poll(() => textsTo().slice(before).join('\n'), { timeout: 15_000 }).toContain('Invalid file format');
    const downloads = telegram.fileRequests.length;
    telegram.userSpeaks(ana, { bytes: new Uint8Array(16), claimedSize: 400 * 1024 * 1024 });
    await expect.poll(() => textsTo().slice(before).join('\n'), { timeout: 15_000 }).toContain('the recording is larger than');
    expect(telegram.fileRequests.length).toBe(downloads); // not even asked for
    expect(model.requests.slice(asked).some((request) => JSON.stringify(request.body).includes('hello there'))).toBe(false);
    expect((await userMessages()).length).toBe(1);
  });
});

describe('voice replies on Telegram (per chat, off until /voice on)', { timeout: 120_000 }, () => {
  const speechCalls = async () => (await readWholeSession({ sessionId })).calls.filter((call) => call.layer === 'speech');

  it('off by default: a voice note is answered with text only; /voice says so', async () => {
    await saveSpeechVoice({ engine: 'espeak', voice: 'en' });
    const before = textsTo().length;
    telegram.userWrites(ana, '/voice');
    await expect.poll(() => textsTo().slice(before).join('\n'), { timeout: 10_000 }).toContain('Voice replies here are off');
    telegram.userSpeaks(ana, { bytes: await spokenAudio('what is the weather like today', 'ogg') });
    await expect.poll(() => textsTo().slice(before).join('\n'), { timeout: 20_000 }).toMatch(/You said: .*weather/);
    expect(telegram.voices).toEqual([]);
  });

  it('on: the answer to a voice note comes as an Ogg/Opus voice note too, under its text, counted as speech', async () => {
    const before = textsTo().length;
    telegram.userWrites(ana, '/voice on');
    await expect.poll(() => textsTo().slice(before).join('\n'), { timeout: 10_000 }).toContain('Voice replies on');
    expect((await listBindings({ channelId }))[0]!.voiceReplies).toBe(true);
    const spokenBefore = (await speechCalls()).length;
    telegram.userSpeaks(ana, { bytes: await spokenAudio('what is the weather like today', 'ogg') });
    await expect.poll(() => telegram.voices.length, { timeout: 30_000 }).toBe(1);
    const [voice] = telegram.voices;
    const answer = telegram.sent.find((message) => message.messageId === voice!.replyTo);
    expect(answer?.text).toMatch(/You said: .*weather/);
    expect(voice).toMatchObject({ chatId: String(ana.id), format: 'ogg-opus' });
    expect(voice!.bytes.byteLength).toBeGreaterThan(1_000);
    // Heard by the same engine: real speech, saying the answer's words.
    const heard = await fetch(`${speech.url}/audio/transcriptions`, { method: 'POST', body: (() => { const form = new FormData(); form.set('file', new Blob([new Uint8Array(voice!.bytes)], { type: 'audio/ogg' }), 'reply.ogg'); form.set('model', 'whisper-1'); return form; })() });
    expect(((await heard.json()) as { text: string }).text).toMatch(/said|weather/);
    const calls = (await speechCalls()).slice(spokenBefore);
    expect(calls.map((call) => [call.backend, call.model, call.error])).toEqual([['speech_to_text', 'whisper-1', null], ['espeak', 'espeak-ng', null]]);
  });

  it('a typed message is answered with text only, and /voice off stops the voice notes', async () => {
    const before = textsTo().length;
    telegram.userWrites(ana, 'just typing now');
    await expect.poll(() => textsTo().slice(before).join('\n'), { timeout: 20_000 }).toContain('You said: just typing now');
    telegram.userWrites(ana, '/voice off');
    await expect.poll(() => textsTo().slice(before).join('\n'), { timeout: 10_000 }).toContain('Voice replies off');
    telegram.userSpeaks(ana, { bytes: await spokenAudio('one more question', 'ogg') });
    await expect.poll(() => textsTo().slice(before).filter((text) => text.startsWith('You said')).length, { timeout: 20_000 }).toBe(2);
    expect(telegram.voices).toHaveLength(1);
  });
});
