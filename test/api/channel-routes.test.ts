// /api/channels, pairings and bindings with real Requests, the real store and a running channel
// against the fake Bot API — and the security corpus of issue 28 §4: the token is write-only
// (masked in every answer, kept by a masked save, never in an error, a status or an export), a
// pairing code is this channel's, once and unexpired (guessed, replayed or another channel's: 404),
// a binding belongs to its session, and every bad body is a clear 400 that changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as channels from '@/app/api/channels/route';
import * as channel from '@/app/api/channels/[id]/route';
import * as testRoute from '@/app/api/channels/[id]/test/route';
import * as pairings from '@/app/api/channels/[id]/pairings/route';
import * as bindings from '@/app/api/sessions/[id]/bindings/route';
import * as binding from '@/app/api/bindings/[id]/route';
import * as exportRoute from '@/app/api/sessions/[id]/export/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { listChannels } from '@/lib/store/channels-repository';
import { openChannelConfig, type TelegramConfig } from '@/lib/channels/channel-config';
import { startFakeTelegram, type FakeTelegram } from '@/test/fakes/fake-telegram-server';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
let telegram: FakeTelegram;

beforeAll(async () => {
  telegram = await startFakeTelegram();
  await startOrchestrator({ channels: true, createBackend: () => new ScriptedBackend([], { text: '<ID_loud>ok</ID_loud>', holdAfterChunks: 0 }) });
});
afterAll(async () => {
  await stopOrchestrator();
  await telegram.close();
});

const base = 'http://127.0.0.1:3000';
const json = (method: string, url: string, body: unknown) => new Request(`${base}${url}`, { method, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const idContext = (id: string) => ({ params: Promise.resolve({ id }) });
const read = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });

async function expectError(response: Response, status: number, code: string, pattern: RegExp) {
  const { status: got, body } = await read(response);
  expect(got).toBe(status);
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(pattern);
}

describe('/api/channels', () => {
  it('saves a bot with a write-only token, tests it, pairs a stranger once, binds and unbinds', async () => {
    const created = await read(await channels.PUT(json('PUT', '/api/channels', { kind: 'telegram', name: 'phone', config: { token: telegram.token, api_root: telegram.apiRoot } }), undefined));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const tail = telegram.token.slice(-4);
    expect(created.body.config.token).toBe(`••••${tail}`);
    expect(JSON.stringify(created.body)).not.toContain(telegram.token);
    expect(JSON.stringify(created.body)).not.toContain('callback_secret');

    // A save that sends the mask back keeps the token; the stored row still has the real one.
    const renamed = await read(await channels.PUT(json('PUT', '/api/channels', { id, kind: 'telegram', name: 'my phone', config: { token: `••••${tail}`, api_root: telegram.apiRoot } }), undefined));
    expect(renamed.status).toBe(200);
    expect(openChannelConfig((await listChannels())[0]!.id, 'telegram', (await listChannels())[0]!.config as TelegramConfig).token).toBe(telegram.token);
    await expect.poll(async () => (await read(await channels.GET(new Request(`${base}/api/channels`), undefined))).body.channels[0].state.kind, { timeout: 10_000 }).toBe('connected');

    expect(await read(await testRoute.POST(new Request(`${base}/api/channels/${id}/test`, { method: 'POST' }), idContext(id)))).toEqual({ status: 200, body: { ok: true, detail: `@${telegram.bot.username} (AgentCSD test)` } });

    // Bad bodies: 400, nothing changes.
    const before = JSON.stringify(await listChannels());
    await expectError(await channels.PUT(json('PUT', '/api/channels', '{"kind":'), undefined), 400, 'invalid_json', /JSON/);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { kind: 'telegram', name: 'x', config: { token: 'not a token' } }), undefined), 400, 'validation_failed', /BotFather/);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { kind: 'sms', name: 'x', config: {} }), undefined), 400, 'validation_failed', /kind/);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { kind: 'irc', name: 'x', config: { host: 'irc.example.org', nick: 'bad nick', password: '' } }), undefined), 400, 'validation_failed', /nick/);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { kind: 'irc', name: 'x', config: { host: 'h\nPRIVMSG', nick: 'n', password: '' } }), undefined), 400, 'validation_failed', /host/);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { kind: 'telegram', name: 'x\u0000', config: { token: telegram.token } , extra: 1 }), undefined), 400, 'validation_failed', /./);
    // Email and Discord (issue 47): hostile hosts, a missing password, a token that is not one, a channel id that is a path.
    const mailServer = { host: 'imap.example.org', port: 993, tls: true, user: 'agent@example.org', password: 'app-password' };
    const mail = (config: Record<string, unknown>) => json('PUT', '/api/channels', { kind: 'email', name: 'mail', config: { address: 'agent@example.org', imap: mailServer, smtp: mailServer, ...config } });
    await expectError(await channels.PUT(mail({ address: 'not an address' }), undefined), 400, 'validation_failed', /address/);
    await expectError(await channels.PUT(mail({ imap: { ...mailServer, host: 'imap.example.org\r\nA1 LOGOUT' } }), undefined), 400, 'validation_failed', /host/);
    await expectError(await channels.PUT(mail({ smtp: { ...mailServer, port: 70_000 } }), undefined), 400, 'validation_failed', /port/);
    await expectError(await channels.PUT(mail({ smtp: { ...mailServer, password: '' } }), undefined), 400, 'validation_failed', /smtp\.password is required/);
    await expectError(await channels.PUT(mail({ imap: { ...mailServer, folder: 'INBOX\u0000' } }), undefined), 400, 'validation_failed', /./);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { kind: 'discord', name: 'd', config: { token: 'hunter2' } }), undefined), 400, 'validation_failed', /bot token/);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { kind: 'discord', name: 'd', config: { token: '', guild_channels: [] } }), undefined), 400, 'validation_failed', /token is required/);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { kind: 'discord', name: 'd', config: { token: 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GfAkEd.fake-discord-bot-token-0123456789ab', guild_channels: ['../../x'] } }), undefined), 400, 'validation_failed', /Discord id/);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { id, kind: 'irc', name: 'x', config: { host: 'h', nick: 'n', password: '' } }), undefined), 409, 'conflict', /telegram/);
    await expectError(await channels.PUT(json('PUT', '/api/channels', { id: crypto.randomUUID(), kind: 'telegram', name: 'x', config: { token: telegram.token } }), undefined), 404, 'not_found', /No channel/);
    await expectError(await channel.DELETE(new Request(`${base}/api/channels/x`, { method: 'DELETE' }), idContext('../x')), 404, 'not_found', /UUID/);
    expect(JSON.stringify(await listChannels())).toBe(before);

    // A stranger's code shows on the page; guesses, another channel's code and a replay are 404.
    const session = await getOrchestrator().createSession({ persona: 'tester' });
    telegram.userWrites({ id: 77, username: 'bea' }, 'hi, let me in');
    const waiting = async () => (await read(await pairings.GET(new Request(`${base}/api/channels/${id}/pairings`), idContext(id)))).body.pairings as { code: string; sender: string; first_text: string }[];
    await expect.poll(async () => (await waiting()).length, { timeout: 10_000 }).toBe(1);
    const [{ code, sender, first_text }] = (await waiting()) as [{ code: string; sender: string; first_text: string }];
    expect({ sender, first_text }).toEqual({ sender: '@bea', first_text: 'hi, let me in' });
    const approve = (body: unknown, channelId = id) => pairings.POST(json('POST', `/api/channels/${channelId}/pairings`, body), idContext(channelId));
    await expectError(await approve({ code: 'AAAA-AAAA', session_id: session.id }), 404, 'not_found', /No pairing code/);
    await expectError(await approve({ code, session_id: session.id, persona: 'tester' }), 400, 'validation_failed', /one of the two/);
    await expectError(await approve({ code, session_id: crypto.randomUUID() }), 404, 'not_found', /No session/);
    await expectError(await approve({ code, session_id: session.id }, crypto.randomUUID()), 404, 'not_found', /No channel/);
    await expectError(await approve({ code, session_id: session.id, quiet_hours: { from: '25:00', to: '07:00', time_zone: 'Europe/Madrid' } }), 400, 'validation_failed', /HH:MM/);
    // A session with people in it is shared only on purpose: without `share`, a conflict naming who is in it, and the code stays.
    await expectError(await approve({ code, session_id: session.id }), 409, 'conflict', /conversation of the owner.*share: true/);
    const approved = await read(await approve({ code: code.toLowerCase().replace('-', ''), session_id: session.id, share: true, push: 'cards', quiet_hours: { from: '22:00', to: '07:00', time_zone: 'Europe/Madrid' } }));
    expect(approved.status).toBe(201);
    expect(approved.body.binding).toMatchObject({ channel_id: id, sender: '@bea', session_id: session.id, push: 'cards' });
    await expectError(await approve({ code, session_id: session.id }), 404, 'not_found', /already approved/);

    // Bindings: listed per session, changed, another session's refused, deleted once.
    const listed = await read(await bindings.GET(new Request(`${base}/api/sessions/${session.id}/bindings`), idContext(session.id)));
    expect(listed.body.bindings).toHaveLength(1);
    const bindingId = listed.body.bindings[0].id as string;
    const changed = await read(await bindings.PUT(json('PUT', `/api/sessions/${session.id}/bindings`, { bindings: [{ id: bindingId, push: 'all', quiet_hours: null }] }), idContext(session.id)));
    expect(changed.body.bindings[0]).toMatchObject({ push: 'all', quiet_hours: null });
    const other = await getOrchestrator().createSession({ persona: 'tester' });
    await expectError(await bindings.PUT(json('PUT', `/api/sessions/${other.id}/bindings`, { bindings: [{ id: bindingId, push: 'cards' }] }), idContext(other.id)), 404, 'not_found', /No binding/);

    // The token is in no answer, no status and no export.
    const exported = await (await exportRoute.GET(new Request(`${base}/api/sessions/${session.id}/export?format=json`), idContext(session.id))).text();
    const everything = [exported, JSON.stringify((await read(await channels.GET(new Request(`${base}/api/channels`), undefined))).body)].join('\n');
    expect(everything).not.toContain(telegram.token);
    // Nor the database: the token is sealed at rest like every channel's secret (red-team round 4).
    const stored = JSON.stringify((await listChannels()).map((entry) => entry.config));
    expect(stored).not.toContain(telegram.token.split(':')[1]);
    expect(stored).toMatch(/"token":"v1:/);
    expect(everything).not.toContain(telegram.token.split(':')[1]);

    expect((await binding.DELETE(new Request(`${base}/api/bindings/${bindingId}`, { method: 'DELETE' }), idContext(bindingId))).status).toBe(204);
    await expectError(await binding.DELETE(new Request(`${base}/api/bindings/${bindingId}`, { method: 'DELETE' }), idContext(bindingId)), 404, 'not_found', /No binding/);
    expect((await channel.DELETE(new Request(`${base}/api/channels/${id}`, { method: 'DELETE' }), idContext(id))).status).toBe(204);
    expect(await listChannels()).toEqual([]);
  }, 60_000);

  it('a token the Bot API refuses: Test says why, without the token', async () => {
    const wrong = '111111111:AAWrongTokenWrongTokenWrongToken_xyz';
    const created = await read(await channels.PUT(json('PUT', '/api/channels', { kind: 'telegram', name: 'wrong', enabled: false, config: { token: wrong, api_root: telegram.apiRoot } }), undefined));
    const id = created.body.id as string;
    const tested = await read(await testRoute.POST(new Request(`${base}/api/channels/${id}/test`, { method: 'POST' }), idContext(id)));
    expect(tested.body).toMatchObject({ ok: false, error: expect.stringMatching(/401/) });
    expect(JSON.stringify(tested.body)).not.toContain(wrong.split(':')[1]);
  });
});
