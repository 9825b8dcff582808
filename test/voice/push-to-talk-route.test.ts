// Push-to-talk's route (issue 76 §3) with real speech: a browser-like WebM/Opus recording is kept
// with the session as audio and heard → {file, text}; with no speech server, or one that refuses,
// the recording is kept and attached all the same ({text: null, problem}); what is not a recording
// is refused (422) and a body that is not a form is 415; the file comes back playable (inline).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fileRoute from '@/app/api/files/[id]/route';
import * as voiceRoute from '@/app/api/sessions/[id]/voice/route';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { insertSession } from '@/lib/store/sessions-repository';
import { listUploads } from '@/lib/store/uploads-repository';
import { replaceAllowances, reserve, settle, type AllowanceRecord } from '@/lib/store/allowances-repository';
import { saveTranscriptionServer } from '@/lib/voice/voice-settings';
import { spokenAudio, startSpeechServer, type SpeechServer } from '@/test/fakes/speech-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
let sessionId = '';
let speech: SpeechServer;

beforeAll(async () => {
  sessionId = randomUUID();
  await insertSession({ id: sessionId, name: 'talk', personaName: 'p', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'active' });
  speech = await startSpeechServer();
});
afterAll(() => speech.close());

async function talk(bytes: Uint8Array, name = 'recording.webm', type = 'audio/webm;codecs=opus') {
  const form = new FormData();
  form.append('file', new File([new Uint8Array(bytes)], name, { type }));
  const response = await voiceRoute.POST(new Request(`http://127.0.0.1:3000/api/sessions/${sessionId}/voice`, { method: 'POST', body: form }), { params: Promise.resolve({ id: sessionId }) });
  return { status: response.status, json: (await response.json()) as { file: { id: string; file_kind: string; mime_type: string }; text: string | null; problem?: string; error?: { code: string; message: string } } };
}

describe('push-to-talk', () => {
  it('with no speech server: the recording is kept and attached, and the person told how it gets heard', async () => {
    const answer = await talk(await spokenAudio('tell me a story about a dog', 'webm'));
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ file: { file_kind: 'audio', mime_type: 'audio/webm' }, text: null, problem: expect.stringContaining('Settings › Voice') });
  });

  it('heard on the speech server: the words come back to edit, the recording kept and playable', async () => {
    await saveTranscriptionServer({ endpoint: speech.url, model: 'whisper-1' });
    const answer = await talk(await spokenAudio('tell me a story about a dog', 'webm'));
    expect(answer.status).toBe(201);
    expect(answer.json.text).toContain('story');
    const served = await fileRoute.GET(new Request(`http://127.0.0.1:3000/api/files/${answer.json.file.id}`), { params: Promise.resolve({ id: answer.json.file.id }) });
    expect(served.headers.get('content-type')).toBe('audio/webm');
    expect(served.headers.get('content-disposition')).toMatch(/^inline/);
    expect(served.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('past the day’s allowance the speech server is not asked; the recording is kept and the person told', async () => {
    const allowance: AllowanceRecord = { id: 'persona:p', scope: 'persona', scopeId: 'p', usdPerDay: null, tokensPerDay: 100, timeZone: 'UTC' };
    await replaceAllowances([allowance], new Date());
    const held = await reserve([allowance], { usd: 0, tokens: 100 }, new Date());
    if (held.ok) await settle(held.reservation, { usd: 0, tokens: 100 });
    const asked = speech.received.length;
    const answer = await talk(await spokenAudio('hello', 'webm'));
    expect(answer).toMatchObject({ status: 201, json: { file: { file_kind: 'audio' }, text: null, problem: expect.stringContaining('allowance') } });
    expect(speech.received.length).toBe(asked);
    await replaceAllowances([], new Date());
  });

  it('a refusal keeps the recording; what is not a recording, or not a form, changes nothing', async () => {
    speech.failNext(500, 'out of memory');
    expect((await talk(await spokenAudio('hello', 'webm'))).json).toMatchObject({ text: null, problem: expect.stringContaining('(500): out of memory') });
    const kept = (await listUploads(sessionId)).length;
    expect(await talk(new TextEncoder().encode('<script>alert(1)</script>'), 'recording.webm')).toMatchObject({ status: 422, json: { error: { code: 'unprocessable' } } });
    const notForm = await voiceRoute.POST(new Request(`http://127.0.0.1:3000/api/sessions/${sessionId}/voice`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), { params: Promise.resolve({ id: sessionId }) });
    expect(notForm.status).toBe(415);
    expect((await listUploads(sessionId)).length).toBe(kept);
  });
});
