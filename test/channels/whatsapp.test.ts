// WhatsApp on Meta's Cloud API (issue 77) against the loopback fake of the Graph API and of Meta's
// webhook sender (test/fakes/fake-whatsapp.ts), through the real route (`/api/channels/:id/whatsapp`)
// on a loopback socket: the handshake; a stranger gets a pairing code and reaches no model; a forged
// or unsigned delivery is refused with nothing stored; paired, a message is answered once, marked
// read with "typing…", however often Meta delivers it — a lost acknowledgement, a crash between
// recording and acknowledging; a card is decided by its person's button and by nobody else's; a
// voice note is heard; outside the 24-hour window the words wait (or go as the owner's template).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as channelsRoute from '@/app/api/channels/route';
import * as webhookRoute from '@/app/api/channels/[id]/whatsapp/route';
import { approveAndBind, approvePairingSchema } from '@/lib/channels/channel-pairing';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { listBindings, listOpenPairings, outboxCounts, waitingOutbox, writeOffset } from '@/lib/store/channels-repository';
import { getDb } from '@/lib/store/db';
import { readWholeSession } from '@/lib/store/messages-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';
import { saveSpeechVoice, saveTranscriptionServer } from '@/lib/voice/voice-settings';
import { listUploads } from '@/lib/store/uploads-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { startFakeWhatsApp, type FakeWhatsApp } from '@/test/fakes/fake-whatsapp';
import { spokenAudio, startSpeechServer, type SpeechServer } from '@/test/fakes/speech-server';
import { taskScript } from '@/test/fakes/task-script';
import { serveRoute } from '@/test/support/route-server';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
let model: FakeOpenAIServer;
let whatsapp: FakeWhatsApp;
let speech: SpeechServer;
let bridge: Awaited<ReturnType<typeof serveRoute>>;
let channelId = '';
let sessionId = '';
let verifyToken = '';
const ana = { wa_id: '15551230001', name: 'Ana' };
const stranger = { wa_id: '15559990002', name: 'Mallory' };

const layer = () => ({ backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` });
const textsTo = (person: { wa_id: string }) => whatsapp.sent.filter((message) => message.to === person.wa_id && message.type === 'text').map((message) => (message.body.text as { body: string }).body);
const userMessages = async () => (await readWholeSession({ sessionId })).messages.filter((message) => message.tag === 'ED_user').map((message) => message.content);
const stored = async () => (await readWholeSession({ sessionId })).messages.length;

beforeAll(async () => {
  fs.chmodSync(dirs.root, 0o755);
  model = await startFakeOpenAIServer({ script: taskScript });
  whatsapp = await startFakeWhatsApp();
  speech = await startSpeechServer();
  await writeSettings({ ...(await readSettings()), models: { c_model: layer(), s_model: layer() } });
  await startOrchestrator({ channels: true, taskWorkingDelayMs: 0 });
  bridge = await serveRoute(webhookRoute as never, /^\/api\/channels\/(?<id>[0-9a-f-]{36})\/whatsapp$/);
  const config = { phone_number_id: whatsapp.phoneNumberId, access_token: whatsapp.accessToken, app_secret: whatsapp.appSecret, api_root: whatsapp.apiRoot };
  const created = await channelsRoute.PUT(new Request('http://127.0.0.1:3000/api/channels', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'whatsapp', name: 'Family WhatsApp', config }) }), undefined);
  const channel = (await created.json()) as { id: string; config: Record<string, unknown> };
  if (created.status !== 201) throw new Error(`the channel was not made: ${JSON.stringify(channel)}`);
  channelId = channel.id;
  verifyToken = String(channel.config.verify_token);
  whatsapp.setWebhook(`${bridge.url}/api/channels/${channelId}/whatsapp`);
  const session = await getOrchestrator().createSession({ persona: 'tester', models: { c_model: layer(), s_model: layer() } });
  sessionId = session.id;
});

afterAll(async () => {
  await stopOrchestrator();
  await bridge?.close();
  await whatsapp?.close();
  await speech?.close();
  await model?.close();
});

describe('WhatsApp through the Cloud API', { timeout: 120_000 }, () => {
  it('is connected once the Graph API knows the number; answers Meta’s handshake with our verify token only', async () => {
    await expect.poll(async () => (await getOrchestrator().channels!.status(channelId)).state, { timeout: 30_000 }).toMatchObject({ kind: 'connected', detail: expect.stringContaining('+1 555-0100 (AgentCSD Family)') });
    const listed = (await (await channelsRoute.GET(new Request('http://127.0.0.1:3000/api/channels'), undefined)).json()) as { channels: { config: Record<string, unknown> }[] };
    expect(listed.channels[0]!.config).toMatchObject({ access_token: `••••${whatsapp.accessToken.slice(-4)}`, app_secret: `••••${whatsapp.appSecret.slice(-4)}`, webhook_path: `/api/channels/${channelId}/whatsapp` });
    expect(JSON.stringify(listed)).not.toContain(whatsapp.accessToken);
    expect(JSON.stringify(listed)).not.toContain(whatsapp.appSecret);
    expect(await whatsapp.verify(verifyToken, '8132')).toEqual({ status: 200, body: '8132' });
    expect((await whatsapp.verify('someone-elses-token')).status).toBe(403);
  });

  it('a stranger gets one pairing code and reaches no model; forged and unsigned deliveries are refused, nothing stored', async () => {
    await whatsapp.userWrites(stranger, 'hello, who are you?');
    await expect.poll(() => textsTo(stranger).length, { timeout: 30_000 }).toBe(1);
    const [pairing] = await listOpenPairings(channelId, new Date());
    expect(pairing).toMatchObject({ sender: 'wa:+15559990002', senderName: 'Mallory', firstText: 'hello, who are you?' });
    expect(textsTo(stranger)[0]).toContain(pairing!.code);
    expect(model.requests.some((request) => JSON.stringify(request.body).includes('who are you'))).toBe(false);

    const { payload } = await whatsapp.userWrites(ana, 'my first words');
    const pairings = (await listOpenPairings(channelId, new Date())).length;
    const forged = payload.replace('my first words', 'send me the secrets');
    expect(await whatsapp.deliverRaw(forged, { 'x-hub-signature-256': whatsapp.sign(payload) })).toBe(401);
    expect(await whatsapp.deliverRaw(forged, {})).toBe(401);
    expect(await whatsapp.deliverRaw(forged, { 'x-hub-signature-256': 'sha256=zz' })).toBe(401);
    expect(whatsapp.attempts.at(-1)!.body).toContain('Not signed');
    expect((await listOpenPairings(channelId, new Date())).length).toBe(pairings);
    expect((await listOpenPairings(channelId, new Date())).map((open) => open.firstText)).not.toContain('send me the secrets');
  });

  it('paired, a message is answered once — read with typing, redelivered, its acknowledgement lost, a crash before it was noted', async () => {
    const pairing = (await listOpenPairings(channelId, new Date())).find((open) => open.sender === 'wa:+15551230001')!;
    await approveAndBind(channelId, approvePairingSchema.parse({ code: pairing.code, session_id: sessionId, role: 'trusted', share: true }));
    getOrchestrator().channels!.wake(channelId);
    await expect.poll(() => textsTo(ana).at(-1), { timeout: 30_000 }).toMatch(/^Paired/);

    const hello = await whatsapp.userWrites(ana, 'Hi there, **friend**');
    expect(hello.status).toBe(200);
    await expect.poll(() => textsTo(ana).filter((text) => text.includes('You said: Hi there')).length, { timeout: 30_000 }).toBe(1);
    expect(textsTo(ana).find((text) => text.includes('You said: Hi there'))).toContain('*friend*'); // WhatsApp's bold, not Markdown's
    expect(whatsapp.reads).toContainEqual({ messageId: hello.id, typing: true });
    // Statuses come back into the outbox.
    await expect.poll(async () => (await outboxCounts(channelId)).pending, { timeout: 30_000 }).toBe(0);
    await expect.poll(async () => (await (await getDb()).channelOutbox.findMany({ where: { channelId, address: ana.wa_id } })).every((row) => row.delivery === 'delivered'), { timeout: 30_000 }).toBe(true);

    // Meta delivers it again (it doubted the first): acknowledged, not answered twice.
    expect(await whatsapp.redeliver(hello.payload)).toBe(200);
    // The process died after storing it and before noting it handled: the redelivery is still the same message.
    await writeOffset(`${channelId}:whatsapp-messages`, '[]');
    await getOrchestrator().channels!.reload(channelId); // a new process: the offsets read afresh
    expect(await whatsapp.redeliver(hello.payload)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await userMessages()).filter((text) => text.includes('Hi there'))).toHaveLength(1);
    expect(textsTo(ana).filter((text) => text.includes('You said: Hi there'))).toHaveLength(1);
  });

  it('a card comes as reply buttons: decided by its person’s press, once; a stranger’s or a tampered press changes nothing', async () => {
    await whatsapp.userWrites(ana, 'Please do it [[tools]]');
    await expect.poll(() => whatsapp.sent.filter((message) => message.type === 'interactive').length, { timeout: 30_000 }).toBeGreaterThan(0);
    const card = whatsapp.sent.find((message) => message.type === 'interactive' && JSON.stringify(message.body).includes('bash'))!;
    const buttons = (card.body.interactive as { action: { buttons: { reply: { id: string; title: string } }[] } }).action.buttons.map((button) => button.reply);
    expect(buttons.map((button) => button.title)).toEqual(['Approve', 'Always here', 'Deny']);
    const approve = buttons[0]!.id;
    const bash = async () => (await listToolCalls({ sessionId })).find((call) => call.name === 'bash');
    expect((await bash())?.status).toBe('awaiting_approval');

    await whatsapp.userPresses(stranger, approve, 'Approve');
    await whatsapp.userPresses(ana, approve.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A')), 'Approve');
    await expect.poll(() => [...textsTo(stranger), ...textsTo(ana)].filter((text) => text.includes('not valid')).length, { timeout: 30_000 }).toBe(2);
    expect((await bash())?.status).toBe('awaiting_approval');

    const before = textsTo(ana).length;
    await whatsapp.userPresses(ana, approve, 'Approve');
    await whatsapp.userPresses(ana, approve, 'Approve');
    await expect.poll(async () => (await bash())?.status, { timeout: 40_000 }).toMatch(/running|succeeded/);
    await expect.poll(() => textsTo(ana).slice(before).filter((text) => /approved|not awaiting|already|running|succeeded/i.test(text)).length, { timeout: 30_000 }).toBe(2);
    const [decided, again] = textsTo(ana).slice(before).filter((text) => /approved|not awaiting|already|running|succeeded/i.test(text));
    expect(decided).toMatch(/approved/i);
    expect(again).toMatch(/not awaiting|already|running|succeeded/i);
    // The turn's other card, denied by its Deny button: the turn ends.
    await expect.poll(() => whatsapp.sent.some((message) => message.type === 'interactive' && JSON.stringify(message.body).includes('python')), { timeout: 40_000 }).toBe(true);
    const python = whatsapp.sent.find((message) => message.type === 'interactive' && JSON.stringify(message.body).includes('python'))!;
    const deny = (python.body.interactive as { action: { buttons: { reply: { id: string; title: string } }[] } }).action.buttons.find((button) => button.reply.title === 'Deny')!.reply.id;
    await whatsapp.userPresses(ana, deny, 'Deny');
    await expect.poll(async () => (await listToolCalls({ sessionId })).find((call) => call.name === 'python')?.status, { timeout: 40_000 }).toBe('denied');
  });

  it('a voice note is fetched from Meta with the token and heard', async () => {
    await saveTranscriptionServer({ endpoint: speech.url, model: 'whisper-1', language: 'en' });
    await whatsapp.userSends(ana, { kind: 'audio', bytes: await spokenAudio('what is the weather like today', 'ogg'), mimeType: 'audio/ogg; codecs=opus', voice: true });
    await expect.poll(() => textsTo(ana).some((text) => /You said: .*weather/.test(text)) || textsTo(ana).slice(-3), { timeout: 40_000 }).toBe(true);
    expect((await userMessages()).some((text) => /weather/.test(text))).toBe(true);
    expect(speech.received.at(-1)).toMatchObject({ filename: 'voice-note.ogg' });

    // /voice on: the answer to her next voice note comes as a voice note too (uploaded, then sent under the text).
    await whatsapp.userWrites(ana, '/voice on');
    await expect.poll(() => textsTo(ana).at(-1), { timeout: 30_000 }).toContain('Voice replies on');
    await saveSpeechVoice({ engine: 'espeak', voice: 'en' });
    await whatsapp.userSends(ana, { kind: 'audio', bytes: await spokenAudio('what is the weather like today', 'ogg'), mimeType: 'audio/ogg; codecs=opus', voice: true });
    await expect.poll(() => whatsapp.sent.filter((message) => message.type === 'audio').length, { timeout: 30_000 }).toBe(1);
    const audio = whatsapp.sent.find((message) => message.type === 'audio')!;
    const text = whatsapp.sent.filter((message) => message.type === 'text' && message.at <= audio.at).at(-1)!;
    expect(audio.body).toMatchObject({ audio: { id: expect.any(String) }, context: { message_id: text.id } });
  });

  it('an image comes through the upload checks, kept with the conversation', async () => {
    const { default: sharp } = await import('sharp');
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#25d366' } }).jpeg().toBuffer();
    await whatsapp.userSends(ana, { kind: 'image', bytes: image, mimeType: 'image/jpeg', caption: 'our new door' });
    await expect.poll(async () => (await listUploads(sessionId)).some((upload) => upload.kind === 'image' && upload.mimeType === 'image/jpeg'), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => textsTo(ana).some((text) => text.includes('You said: our new door')), { timeout: 30_000 }).toBe(true);
    // A file is what its bytes are, not what WhatsApp's mime type claims: a page posing as a PDF is kept as plain text.
    await whatsapp.userSends(ana, { kind: 'document', bytes: new TextEncoder().encode('<html><script>alert(1)</script>'), mimeType: 'application/pdf', filename: 'invoice.pdf', caption: 'the invoice' });
    await expect.poll(async () => (await listUploads(sessionId)).find((upload) => upload.name === 'invoice.pdf'), { timeout: 30_000 }).toMatchObject({ kind: 'text', mimeType: 'text/plain' });
    await expect.poll(() => textsTo(ana).some((text) => text.includes('You said: the invoice')), { timeout: 30_000 }).toBe(true);
    await expect.poll(async () => (await outboxCounts(channelId)).pending, { timeout: 30_000 }).toBe(0);
  });

  it('outside the 24-hour window the words wait, said why, and go when the person writes; a template sends them at once', async () => {
    // Meta takes the message, then fails it by status (131047): it waits for Ana, with the reason.
    whatsapp.ageWindow(ana.wa_id, 25 * 60 * 60 * 1000);
    await getOrchestrator().sendUserMessage(sessionId, { text: 'from the page, while Ana is away' });
    // Sent, failed by its status, then held (pending again, due only when she writes).
    await expect.poll(async () => (await waitingOutbox([{ channelId, address: ana.wa_id }], new Date())).count, { timeout: 40_000 }).toBe(1);
    expect((await outboxCounts(channelId)).pending).toBe(1);
    const held = await (await getDb()).channelOutbox.findFirst({ where: { channelId, state: 'pending' } });
    expect(held!.error).toContain("outside WhatsApp's 24-hour window for +15551230001: it waits until they write");
    const listed = (await (await channelsRoute.GET(new Request('http://127.0.0.1:3000/api/channels'), undefined)).json()) as { channels: { waiting: string | null }[] };
    expect(listed.channels[0]!.waiting).toMatch(/^outside WhatsApp's 24-hour window/); // what the Channels page says
    // She writes: the window opens, what waited goes, and her message is answered.
    const before = textsTo(ana).length;
    await whatsapp.userWrites(ana, 'I am back');
    await expect.poll(() => textsTo(ana).slice(before).some((text) => text.includes('while Ana is away')), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => textsTo(ana).slice(before).some((text) => text.includes('You said: I am back')), { timeout: 30_000 }).toBe(true);

    // With the owner's template: words outside the window go at once, as the template's parameter.
    const channel = (await (await channelsRoute.GET(new Request('http://127.0.0.1:3000/api/channels'), undefined)).json()) as { channels: { id: string; config: Record<string, unknown> }[] };
    const config = channel.channels.find((found) => found.id === channelId)!.config;
    const saved = await channelsRoute.PUT(new Request('http://127.0.0.1:3000/api/channels', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: channelId, kind: 'whatsapp', name: 'Family WhatsApp', config: { phone_number_id: config.phone_number_id, access_token: config.access_token, app_secret: config.app_secret, verify_token: config.verify_token, api_root: config.api_root, template: { name: 'agentcsd_update', language: 'en' } } }) }), undefined);
    expect(saved.status).toBe(200);
    await expect.poll(async () => (await getOrchestrator().channels!.status(channelId)).state.kind, { timeout: 30_000 }).toBe('connected');
    // Her last message was a day ago (the app's note of the window and Meta's agree).
    await writeOffset(`${channelId}:whatsapp-window:${ana.wa_id}`, '0');
    await whatsapp.userWrites(ana, 'an old message', Date.now() - 25 * 60 * 60 * 1000);
    await expect.poll(() => whatsapp.sent.some((message) => message.type === 'template' && JSON.stringify(message.body).includes('You said: an old message')), { timeout: 30_000 }).toBe(true);
    const template = whatsapp.sent.find((message) => message.type === 'template')!;
    expect(template.body.template).toMatchObject({ name: 'agentcsd_update', language: { code: 'en' } });
    // The app thought the window open, Meta did not (it fails the message by status 131047): sent again at once, as the template.
    await writeOffset(`${channelId}:whatsapp-window:${ana.wa_id}`, String(Date.now()));
    whatsapp.ageWindow(ana.wa_id, 25 * 60 * 60 * 1000);
    await getOrchestrator().sendUserMessage(sessionId, { text: 'said while the window closed unseen' });
    await expect.poll(() => whatsapp.sent.some((message) => message.type === 'template' && JSON.stringify(message.body).includes('said while the window closed unseen')), { timeout: 30_000 }).toBe(true);
    expect(whatsapp.sent.some((message) => message.type === 'text' && JSON.stringify(message.body).includes('said while the window closed unseen'))).toBe(true); // the first try, failed by status
    await expect.poll(async () => (await outboxCounts(channelId)).pending, { timeout: 30_000 }).toBe(0);
    expect((await listBindings({ channelId })).find((binding) => binding.sender === 'wa:+15551230001')).toBeDefined();
    expect(await stored()).toBeGreaterThan(0);
  });
});
