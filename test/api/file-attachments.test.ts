// Sending uploaded files with a message (issue 33, ARCHITECTURE §19 `{kind: "file", id}`): the
// message carries a line per file — its path in the workspace, what it is, its size — which the
// Internal Dialog reads; each upload goes with one message of its own session, once; a file of
// another session, an unknown one or one already sent is refused and nothing is stored.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import sharp from 'sharp';
import * as contextRoute from '@/app/api/sessions/[id]/context/route';
import * as messagesRoute from '@/app/api/sessions/[id]/messages/route';
import * as uploadsRoute from '@/app/api/sessions/[id]/uploads/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { recall } from '@/lib/memory/recall';
import { getDb } from '@/lib/store/db';
import type { BackendRequest } from '@/lib/backends/model-backend';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
// A model that takes no images says so, as an OpenAI-compatible server does (400).
const refusesImages = (request: BackendRequest) => request.model === 'mystery-7b' && request.messages.some((message) => message.blocks?.some((block) => block.type === 'image'));
const showsImage = (request: BackendRequest) => request.messages.some((message) => message.blocks?.some((block) => block.type === 'image'));
const backend = new ScriptedBackend([], (request) =>
  refusesImages(request)
    ? { error: { kind: 'invalid_request', status: 400, message: 'this model does not support image input' } }
    : { text: `<ID_loud>Got it.</ID_loud>${showsImage(request) ? '<ID_quiet>caption chart.png: a white square chart, empty of data</ID_quiet>' : ''}` },
);

beforeAll(async () => {
  await startOrchestrator({ createBackend: () => backend });
});
afterAll(async () => {
  await stopOrchestrator();
});

async function upload(sessionId: string, content: Buffer | string, name: string, type: string) {
  const form = new FormData();
  form.append('file', new File([typeof content === 'string' ? content : new Uint8Array(content)], name, { type }));
  const response = await uploadsRoute.POST(new Request('http://127.0.0.1:3000/x', { method: 'POST', body: form }), { params: Promise.resolve({ id: sessionId }) });
  return ((await response.json()) as { file: { id: string; bytes: number } }).file;
}

const send = (sessionId: string, body: unknown) =>
  messagesRoute.POST(new Request('http://127.0.0.1:3000/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), {
    params: Promise.resolve({ id: sessionId }),
  });

const userMessages = async (sessionId: string) => (await getDb()).message.count({ where: { sessionId, tag: 'ED_user' } });

describe('files sent with a message', () => {
  it('the message says where each file is and what it is; the Internal Dialog reads it; each file goes once', async () => {
    const session = await getOrchestrator().createSession({ persona: 'tester' });
    const { id: notes } = await upload(session.id, 'Buy milk\nCall Ana\n', 'notes.txt', 'text/plain');
    const { id: photo, bytes: photoBytes } = await upload(session.id, await sharp({ create: { width: 64, height: 48, channels: 3, background: 'white' } }).png().toBuffer(), 'chart.png', 'image/png');

    const sent = await send(session.id, { text: 'Here are my notes and the chart', attachments: [{ kind: 'file', id: notes }, { kind: 'file', id: photo }] });
    expect(sent.status).toBe(202);
    const { message } = (await sent.json()) as { message: { id: number; content: string } };
    expect(message.content).toBe(
      'Here are my notes and the chart\n\n' +
        `[attached file: /workspace/uploads/notes.txt — text, text/plain, 18 B · file ${notes}]\n` +
        `[attached file: /workspace/uploads/chart.png — image, image/png, 64 × 48, ${photoBytes} B · file ${photo}]`,
    );
    const call = await vi.waitFor(
      () => {
        const found = backend.calls.find((request) => request.messages.some((m) => m.content.includes('[attached file: /workspace/uploads/notes.txt')));
        if (!found) throw new Error('not called yet');
        return found;
      },
      { timeout: 10_000 },
    );
    // The model sees the image before the words (the session's model sees images); the text file stays a line.
    const blocks = call.messages[0]!.blocks!;
    expect(blocks.map((block) => block.type)).toEqual(['image', 'text']);
    expect(blocks[0]).toMatchObject({ type: 'image', mediaType: 'image/png', label: '/workspace/uploads/chart.png', tokens: Math.ceil((64 * 48) / 750) });
    // The context viewer names it, without its bytes.
    const context = (await (await contextRoute.GET(new Request('http://127.0.0.1:3000/x'), { params: Promise.resolve({ id: session.id }) })).json()) as Record<string, { user?: string }>;
    expect(JSON.stringify(context)).toContain('[image /workspace/uploads/chart.png, ~5 tokens]');
    // Remembered: the caption it wrote is a memory of the persona, the name is in the message; both are recalled.
    const byCaption = await vi.waitFor(async () => {
      const hits = await recall({ personaName: 'tester', query: 'the empty white square chart' });
      expect(hits.some((hit) => hit.kind === 'memory')).toBe(true);
      return hits;
    }, { timeout: 10_000 });
    expect(byCaption.find((hit) => hit.kind === 'memory')?.content).toBe('Picture "chart.png" (64 × 48) the user sent: a white square chart, empty of data');
    expect((await recall({ personaName: 'tester', query: 'chart.png notes' })).some((hit) => hit.kind === 'message' && hit.id === message.id)).toBe(true);
    const listed = (await (await uploadsRoute.GET(new Request('http://127.0.0.1:3000/x'), { params: Promise.resolve({ id: session.id }) })).json()) as { files: { id: string; message_id: number }[] };
    expect(listed.files.map((file) => file.message_id)).toEqual([message.id, message.id]);

    // Once only; another session's file is not found here; nothing is stored for a refusal.
    const before = await userMessages(session.id);
    const again = await send(session.id, { text: 'again', attachments: [{ kind: 'file', id: notes }] });
    expect([again.status, ((await again.json()) as { error: { code: string } }).error.code]).toEqual([409, 'conflict']);
    const other = await getOrchestrator().createSession({ persona: 'tester' });
    const { id: theirs } = await upload(other.id, 'theirs', 'theirs.txt', 'text/plain');
    expect((await send(session.id, { text: 'not mine', attachments: [{ kind: 'file', id: theirs }] })).status).toBe(404);
    expect((await send(session.id, { text: 'bad', attachments: [{ kind: 'file', id: 'not-a-uuid' }] })).status).toBe(400);
    expect((await send(session.id, { text: 'extra', attachments: [{ kind: 'file', id: notes, path: '/etc/passwd' }] })).status).toBe(400);
    expect(await userMessages(session.id)).toBe(before);
  });
});

describe('what each model is shown', () => {
  const photo = () => sharp({ create: { width: 40, height: 30, channels: 3, background: 'red' } }).png().toBuffer();
  // The Internal Dialog's calls that carry these words (the Subconscious reads them too).
  const turnFor = async (label: string) => backend.calls.filter((request) => request.system[0]?.text.startsWith('You are the Internal Dialog') && request.messages[0]?.content.includes(label));
  const quietOf = async (sessionId: string) => vi.waitFor(async () => (await (await getDb()).message.findFirstOrThrow({ where: { sessionId, tag: 'ID_quiet' } })).content, { timeout: 10_000 });

  it('a model known not to take images gets the line alone, and the Internal panel says why', async () => {
    const session = await getOrchestrator().createSession({ persona: 'tester', models: { c_model: { backend: 'openai_compatible', model: 'gpt-oss:20b', endpoint: 'http://127.0.0.1:9/v1', max_tokens: 512 } } });
    const { id } = await upload(session.id, await photo(), 'blind.png', 'image/png');
    expect((await send(session.id, { text: 'see blind.png', attachments: [{ kind: 'file', id }] })).status).toBe(202);
    const [call] = await vi.waitFor(async () => {
      const calls = await turnFor('see blind.png');
      expect(calls.length).toBeGreaterThan(0);
      return calls;
    }, { timeout: 10_000 });
    expect(call!.messages[0]!.blocks).toBeUndefined();
    expect(await quietOf(session.id)).toContain('[Not shown to the model: blind.png not shown: gpt-oss:20b does not take images.]');
  });

  it('a model that refuses images is asked again without them, once, and remembered', async () => {
    const session = await getOrchestrator().createSession({ persona: 'tester', models: { c_model: { backend: 'openai_compatible', model: 'mystery-7b', endpoint: 'http://127.0.0.1:9/v1', max_tokens: 512 } } });
    const { id } = await upload(session.id, await photo(), 'refused.png', 'image/png');
    expect((await send(session.id, { text: 'see refused.png', attachments: [{ kind: 'file', id }] })).status).toBe(202);
    const calls = await vi.waitFor(async () => {
      const found = await turnFor('see refused.png');
      expect(found.length).toBe(2);
      return found;
    }, { timeout: 10_000 });
    expect(calls.map((request) => request.messages[0]!.blocks?.some((block) => block.type === 'image') ?? false)).toEqual([true, false]);
    expect(await quietOf(session.id)).toContain('mystery-7b refused the images (this model does not support image input): sent without them');
  });
});
