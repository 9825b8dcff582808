// *Read aloud* in the server's voice (issue 76 §4, §5), on both stores: `POST /api/sessions/:id/speech`
// says a reply of the conversation with espeak-ng or a speech server and answers the audio, counted
// as a `speech` call; with no voice set it is 409 (the page uses the browser's voices); past an
// allowance the server is not asked (429, Retry-After); a message of another conversation, a private
// thought or a dead server each get their own clear answer.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as speechRoute from '@/app/api/sessions/[id]/speech/route';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { replaceAllowances, type AllowanceRecord } from '@/lib/store/allowances-repository';
import { readWholeSession } from '@/lib/store/messages-repository';
import { insertTurn } from '@/lib/store/mind-repository';
import { insertSession } from '@/lib/store/sessions-repository';
import { saveSpeechVoice } from '@/lib/voice/voice-settings';
import { hear, startSpeechServer, type SpeechServer } from '@/test/fakes/speech-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let speech: SpeechServer;
const sessionId = randomUUID();
const otherId = randomUUID();
let reply = 0;
let thought = 0;
let elsewhere = 0;

beforeAll(async () => {
  speech = await startSpeechServer();
  for (const id of [sessionId, otherId]) await insertSession({ id, name: 'read to me', personaName: 'iris', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'active' });
  const turn = await insertTurn({ sessionId, turnId: 't1', cycleNumber: 1, spontaneous: false, loud: 'The **weather** today is sunny and warm.', quiet: 'She seems cheerful.', interrupted: false, answeredMessageIds: [] });
  reply = turn.find((message) => message.tag === 'ED_agent')!.id;
  thought = turn.find((message) => message.tag === 'ID_quiet')!.id;
  elsewhere = (await insertTurn({ sessionId: otherId, turnId: 't2', cycleNumber: 1, spontaneous: false, loud: 'Not yours.', quiet: '', interrupted: false, answeredMessageIds: [] })).find((message) => message.tag === 'ED_agent')!.id;
});
afterAll(() => speech.close());

const readAloud = (body: unknown, id = sessionId) =>
  speechRoute.POST(new Request(`http://127.0.0.1:3000/api/sessions/${id}/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), { params: Promise.resolve({ id }) });
const errorOf = async (response: Response) => ({ status: response.status, error: ((await response.json()) as { error: { code: string; message: string } }).error });
const speechCalls = async () => (await readWholeSession({ sessionId })).calls.filter((call) => call.layer === 'speech');

describe('a reply read aloud on the server', () => {
  it('with no voice set: 409, and the page reads it in the browser', async () => {
    expect(await errorOf(await readAloud({ message_id: reply }))).toEqual({ status: 409, error: { code: 'conflict', message: expect.stringContaining('Settings › Voice') } });
  });

  it('espeak-ng: the reply’s words (no Markdown) as MP3, counted as a free speech call', async () => {
    await saveSpeechVoice({ engine: 'espeak', voice: 'en-us' });
    const response = await readAloud({ message_id: reply });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const audio = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(audio.byteLength);
    expect((await hear(audio)).text).toMatch(/weather|sunny|warm/);
    expect((await speechCalls()).map((call) => [call.backend, call.model, call.costUsd, call.error])).toEqual([['espeak', 'espeak-ng', 0, null]]);
  });

  it('a speech server with a price: sent the words without Markdown, and what it cost is counted', async () => {
    await saveSpeechVoice({ engine: 'server', endpoint: speech.url, model: 'tts-1', voice: 'alloy' });
    const response = await readAloud({ message_id: reply });
    expect(response.status).toBe(200);
    expect(speech.said.at(-1)).toMatchObject({ model: 'tts-1', voice: 'alloy', response_format: 'mp3', input: 'The weather today is sunny and warm.' });
    const [, paid] = await speechCalls();
    expect(paid).toMatchObject({ backend: 'text_to_speech', model: 'tts-1', error: null });
    expect(paid!.costUsd).toBeCloseTo((15 * 'The weather today is sunny and warm.'.length) / 1_000_000, 9);
  });

  it('past the day’s allowance the server is not asked: 429 with when it renews', async () => {
    const allowance: AllowanceRecord = { id: 'persona:iris', scope: 'persona', scopeId: 'iris', usdPerDay: 0.00001, tokensPerDay: null, timeZone: 'UTC' };
    await replaceAllowances([allowance], new Date());
    const asked = speech.said.length;
    const response = await readAloud({ message_id: reply });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await errorOf(response)).error).toMatchObject({ code: 'too_many_requests', message: expect.stringContaining('The speech server was not asked') });
    expect(speech.said.length).toBe(asked);
    await replaceAllowances([], new Date());
  });

  it('a private thought, another conversation’s message, a bad body and a failing server each say why', async () => {
    expect((await errorOf(await readAloud({ message_id: thought }))).status).toBe(404);
    expect((await errorOf(await readAloud({ message_id: elsewhere }))).status).toBe(404);
    expect((await errorOf(await readAloud({ message_id: reply }, randomUUID()))).status).toBe(404);
    expect(await errorOf(await readAloud({ message_id: 'one' }))).toMatchObject({ status: 400, error: { code: 'validation_failed' } });
    expect((await errorOf(await readAloud({ message_id: reply, voice: 'other' }))).status).toBe(400);
    speech.failNext(500, 'the voice model crashed');
    expect(await errorOf(await readAloud({ message_id: reply }))).toMatchObject({ status: 502, error: { code: 'upstream_failed', message: expect.stringContaining('(500): the voice model crashed') } });
    expect((await speechCalls()).at(-1)).toMatchObject({ error: expect.stringContaining('the voice model crashed'), costUsd: 0 });
  });
});
