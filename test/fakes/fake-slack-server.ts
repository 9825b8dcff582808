// A Slack workspace on loopback, faithful to https://docs.slack.dev where our tests lean on it, and
// shaped like the payloads in @slack/bolt's and @slack/socket-mode's own tests. The Web API
// (`POST /api/<method>`, form-encoded or JSON, `Authorization: Bearer <token>`; answers
// `{ok:false, error:'invalid_auth'}` for a wrong token, `not_authed` for none): auth.test,
// apps.connections.open (app-level token only), chat.postMessage / postEphemeral / update,
// chat.startStream / appendStream / stopStream (refused with `feature_not_enabled` when the test
// turns streaming off), users.info, conversations.info, assistant.threads.setStatus /
// setSuggestedPrompts / setTitle; a
// 429 carries `Retry-After` (seconds) as Slack sends it. Files are served from `/files/…` to the
// bot token only. Socket Mode (`/link`): `hello` on connect, server pings, `events_api`,
// `interactive` and `slash_commands` envelopes, each kept until its `envelope_id` is acknowledged
// — an unacknowledged one is handed over again on the next connection with `retry_attempt` + 1 and
// `retry_reason: 'timeout'`, as Slack does — and `disconnect` with a reason.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface SlackUser {
  id: string;
  name: string;
}

export interface SlackPosted {
  channel: string;
  ts: string;
  text: string;
  thread_ts?: string;
  blocks?: { type: string; elements?: { action_id?: string; value?: string }[] }[];
  /** Made by chat.startStream: still being written until chat.stopStream. */
  streaming?: boolean;
}

export interface FakeSlack {
  apiRoot: string;
  botToken: string;
  appToken: string;
  bot: SlackUser;
  channel: { id: string; name: string };
  posted: SlackPosted[];
  ephemeral: { channel: string; user: string; text: string }[];
  updates: { channel: string; ts: string; text: string; blocks: unknown[] }[];
  /** Every Web API call in order, with its HTTP status and when it was answered (performance.now()). */
  calls: { method: string; status: number; args: Record<string, unknown>; at: number }[];
  /** What each acknowledged envelope was answered with. */
  acks: Map<string, unknown>;
  /** Envelopes not acknowledged yet. */
  unacked(): number;
  connections(): number;
  /** The most Socket Mode connections open at once. */
  maxLive(): number;
  dmOf(user: SlackUser): string;
  userDMs(user: SlackUser, text: string, extra?: { thread_ts?: string; files?: { name: string; mimetype: string; bytes: Buffer; url?: string }[] }): string;
  /** A message in the test channel: a mention of the bot comes as `message` and `app_mention`, as Slack sends both. */
  userPosts(user: SlackUser, text: string, extra?: { thread_ts?: string }): string;
  slash(user: SlackUser, channel: string, text: string): string;
  press(user: SlackUser, message: SlackPosted, actionId: string): string;
  /** The next `count` chat.postMessage calls answer 429 with Retry-After. */
  rateLimitNext(count: number, retryAfterS: number): void;
  /** While true, acknowledgements are lost on the way (as if the app died before sending them). */
  dropAcks: boolean;
  /** Whether chat.startStream works in this workspace (default yes). */
  streaming: boolean;
  /** A person opens the AI side panel: `assistant_thread_started`; the thread's ts. */
  openThread(user: SlackUser): string;
  /** Slack asks the client to reconnect (`disconnect`, reason `refresh_requested` or `warning`). */
  disconnect(reason?: string): void;
  close(): Promise<void>;
}

interface Envelope {
  envelope_id: string;
  type: 'events_api' | 'interactive' | 'slash_commands';
  payload: Record<string, unknown>;
  retry_attempt: number;
  retry_reason: string;
  accepts_response_payload: boolean;
}

const TEAM = 'T0FAKETEAM';
const APP = 'A0FAKEAPP';
let counter = 1_700_000_000;
const nextTs = () => `${++counter}.${String(counter % 1_000_000).padStart(6, '0')}`;
const nextId = (prefix: string) => `${prefix}${randomBytes(5).toString('hex').toUpperCase()}`;

export async function startFakeSlack(): Promise<FakeSlack> {
  const botToken = `xoxb-1000-2000-${randomBytes(12).toString('hex')}`;
  const appToken = `xapp-1-${APP}-3000-${randomBytes(16).toString('hex')}`;
  const bot: SlackUser = { id: 'U0BOTUSER', name: 'agentcsd' };
  const channel = { id: 'C0GENERAL', name: 'general' };
  const users = new Map<string, SlackUser>([[bot.id, bot]]);
  const dms = new Map<string, string>();
  const files = new Map<string, Buffer>();
  const posted: SlackPosted[] = [];
  const ephemeral: FakeSlack['ephemeral'] = [];
  const updates: FakeSlack['updates'] = [];
  const calls: FakeSlack['calls'] = [];
  const acks = new Map<string, unknown>();
  const pending: Envelope[] = [];
  const sockets = new Set<WebSocket>();
  let maxLive = 0;
  let connections = 0;
  let limited = { count: 0, retryAfterS: 1 };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (request.method === 'GET' && url.pathname.startsWith('/files/')) {
        const bytes = files.get(url.pathname);
        response.writeHead(token === botToken && bytes ? 200 : token === botToken ? 404 : 302, bytes && token === botToken ? { 'content-type': 'application/octet-stream' } : { location: 'https://slack.com/signin' });
        return response.end(token === botToken ? bytes : undefined);
      }
      const method = url.pathname.replace(/^\/api\//, '');
      const args = parseBody(request.headers['content-type'] ?? '', Buffer.concat(chunks).toString('utf8'));
      const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
        calls.push({ method, status, args, at: performance.now() });
        response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        response.end(JSON.stringify(body));
      };
      const given = token ?? (typeof args.token === 'string' ? args.token : undefined);
      if (!given) return answer(200, { ok: false, error: 'not_authed' });
      if (method === 'apps.connections.open') {
        if (given !== appToken) return answer(200, { ok: false, error: 'invalid_auth' });
        const address = server.address() as AddressInfo;
        return answer(200, { ok: true, url: `ws://127.0.0.1:${address.port}/link/?ticket=${randomBytes(8).toString('hex')}&app_id=${APP}` });
      }
      if (given !== botToken) return answer(200, { ok: false, error: given === appToken ? 'not_allowed_token_type' : 'invalid_auth' });
      switch (method) {
        case 'auth.test':
          return answer(200, { ok: true, url: 'https://fake.slack.com/', team: 'Fake team', user: bot.name, team_id: TEAM, user_id: bot.id, bot_id: 'B0FAKEBOT', is_enterprise_install: false });
        case 'chat.postMessage': {
          if (limited.count > 0) {
            limited.count--;
            return answer(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(limited.retryAfterS) });
          }
          const text = String(args.text ?? '');
          if (!args.channel) return answer(200, { ok: false, error: 'channel_not_found' });
          if (!text && !args.blocks) return answer(200, { ok: false, error: 'no_text' });
          const message: SlackPosted = { channel: String(args.channel), ts: nextTs(), text, ...(args.thread_ts ? { thread_ts: String(args.thread_ts) } : {}), ...(args.blocks ? { blocks: args.blocks as SlackPosted['blocks'] } : {}) };
          posted.push(message);
          return answer(200, { ok: true, channel: message.channel, ts: message.ts, message: { type: 'message', text, user: bot.id, bot_id: 'B0FAKEBOT', ts: message.ts } });
        }
        case 'chat.startStream': {
          if (!fake.streaming) return answer(200, { ok: false, error: 'feature_not_enabled' });
          if (!args.thread_ts) return answer(200, { ok: false, error: 'invalid_arguments' });
          const message: SlackPosted = { channel: String(args.channel), ts: nextTs(), text: String(args.markdown_text ?? ''), thread_ts: String(args.thread_ts), streaming: true };
          posted.push(message);
          return answer(200, { ok: true, channel: message.channel, ts: message.ts });
        }
        case 'chat.appendStream':
        case 'chat.stopStream': {
          const target = posted.find((message) => message.channel === args.channel && message.ts === args.ts);
          if (!target?.streaming) return answer(200, { ok: false, error: target ? 'message_not_in_streaming_state' : 'message_not_found' });
          target.text += String(args.markdown_text ?? '');
          if (method === 'chat.stopStream') target.streaming = false;
          return answer(200, { ok: true, channel: target.channel, ts: target.ts });
        }
        case 'chat.postEphemeral':
          ephemeral.push({ channel: String(args.channel), user: String(args.user), text: String(args.text ?? '') });
          return answer(200, { ok: true, message_ts: nextTs() });
        case 'chat.update': {
          const target = posted.find((message) => message.channel === args.channel && message.ts === args.ts);
          if (!target) return answer(200, { ok: false, error: 'message_not_found' });
          updates.push({ channel: target.channel, ts: target.ts, text: String(args.text ?? ''), blocks: (args.blocks as unknown[]) ?? [] });
          return answer(200, { ok: true, channel: target.channel, ts: target.ts, text: args.text });
        }
        case 'users.info': {
          const user = users.get(String(args.user));
          return user ? answer(200, { ok: true, user: { id: user.id, name: user.name, team_id: TEAM, profile: { display_name: user.name, real_name: user.name } } }) : answer(200, { ok: false, error: 'user_not_found' });
        }
        case 'conversations.info':
          return args.channel === channel.id ? answer(200, { ok: true, channel: { id: channel.id, name: channel.name, is_channel: true } }) : answer(200, { ok: false, error: 'channel_not_found' });
        case 'assistant.threads.setStatus':
        case 'assistant.threads.setSuggestedPrompts':
        case 'assistant.threads.setTitle':
          return answer(200, { ok: true });
        default:
          return answer(200, { ok: false, error: 'unknown_method' });
      }
    });
  });

  const link = new WebSocketServer({ server, path: '/link/' });
  const pinger = setInterval(() => sockets.forEach((socket) => socket.ping()), 5_000);
  link.on('connection', (socket) => {
    connections++;
    sockets.add(socket);
    maxLive = Math.max(maxLive, sockets.size);
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data) => {
      const reply = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
      if (fake.dropAcks) return;
      const index = pending.findIndex((envelope) => envelope.envelope_id === reply.envelope_id);
      if (index < 0) return;
      acks.set(reply.envelope_id!, reply.payload ?? {});
      pending.splice(index, 1);
    });
    socket.send(JSON.stringify({ type: 'hello', num_connections: sockets.size, debug_info: { host: 'applink-fake', approximate_connection_time: 18060 }, connection_info: { app_id: APP } }));
    // What waited unacknowledged is handed over again, as a retry.
    for (const envelope of pending) {
      envelope.retry_attempt++;
      envelope.retry_reason = 'timeout';
      socket.send(JSON.stringify(envelope));
    }
  });

  const deliver = (type: Envelope['type'], payload: Record<string, unknown>): string => {
    const envelope: Envelope = { envelope_id: randomBytes(16).toString('hex'), type, payload, retry_attempt: 0, retry_reason: '', accepts_response_payload: type !== 'events_api' };
    pending.push(envelope);
    const live = [...sockets].find((socket) => socket.readyState === socket.OPEN);
    live?.send(JSON.stringify(envelope));
    return envelope.envelope_id;
  };
  const event = (body: Record<string, unknown>) =>
    deliver('events_api', { token: 'verification-token', team_id: TEAM, api_app_id: APP, event: { ...body, event_ts: body.ts }, type: 'event_callback', event_id: nextId('Ev'), event_time: Math.floor(Date.now() / 1000), authorizations: [{ team_id: TEAM, user_id: bot.id, is_bot: true, is_enterprise_install: false }], is_ext_shared_channel: false });
  const know = (user: SlackUser) => {
    users.set(user.id, user);
    if (!dms.has(user.id)) dms.set(user.id, `D${user.id.slice(1)}`);
    return dms.get(user.id)!;
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeSlack = {
    apiRoot: `http://127.0.0.1:${port}/api/`,
    botToken,
    appToken,
    bot,
    channel,
    posted,
    ephemeral,
    updates,
    calls,
    acks,
    unacked: () => pending.length,
    connections: () => connections,
    maxLive: () => maxLive,
    dmOf: know,
    userDMs(user, text, extra = {}) {
      const dm = know(user);
      const shared = (extra.files ?? []).map((file) => {
        const id = nextId('F');
        const path = `/files/${id}/${encodeURIComponent(file.name)}`;
        files.set(path, file.bytes);
        return { id, name: file.name, mimetype: file.mimetype, size: file.bytes.length, url_private: file.url ?? `http://127.0.0.1:${port}${path}`, url_private_download: file.url ?? `http://127.0.0.1:${port}${path}` };
      });
      const ts = nextTs();
      event({ type: 'message', channel: dm, channel_type: 'im', user: user.id, text, ts, team: TEAM, ...(extra.thread_ts && { thread_ts: extra.thread_ts }), ...(shared.length > 0 && { subtype: 'file_share', files: shared }) });
      return ts;
    },
    userPosts(user, text, extra = {}) {
      know(user);
      const ts = nextTs();
      const body = { channel: channel.id, user: user.id, text, ts, team: TEAM, ...(extra.thread_ts && { thread_ts: extra.thread_ts }) };
      event({ type: 'message', channel_type: 'channel', ...body });
      if (text.includes(`<@${bot.id}>`)) event({ type: 'app_mention', ...body });
      return ts;
    },
    slash(user, where, text) {
      know(user);
      return deliver('slash_commands', { token: 'verification-token', team_id: TEAM, team_domain: 'fake', channel_id: where, channel_name: where === channel.id ? channel.name : 'directmessage', user_id: user.id, user_name: user.name, command: '/agentcsd', text, api_app_id: APP, is_enterprise_install: 'false', response_url: `http://127.0.0.1:${port}/commands/${TEAM}/1/x`, trigger_id: `1.${Date.now()}.x` });
    },
    press(user, message, actionId) {
      const action = message.blocks?.flatMap((block) => block.elements ?? []).find((element) => element.action_id === actionId);
      return deliver('interactive', {
        type: 'block_actions',
        user: { id: user.id, username: user.name, name: user.name, team_id: TEAM },
        api_app_id: APP,
        token: 'verification-token',
        container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
        trigger_id: `2.${Date.now()}.y`,
        team: { id: TEAM, domain: 'fake' },
        channel: { id: message.channel, name: message.channel.startsWith('D') ? 'directmessage' : channel.name },
        message: { type: 'message', user: bot.id, bot_id: 'B0FAKEBOT', ts: message.ts, text: message.text, blocks: message.blocks },
        actions: [{ type: 'button', action_id: actionId, block_id: 'card', value: action?.value ?? '', text: { type: 'plain_text', text: actionId }, action_ts: `${Date.now() / 1000}` }],
        response_url: `http://127.0.0.1:${port}/actions/${TEAM}/2/y`,
      });
    },
    dropAcks: false,
    streaming: true,
    openThread(user) {
      const dm = know(user);
      const threadTs = nextTs();
      event({ type: 'assistant_thread_started', assistant_thread: { user_id: user.id, context: { channel_id: channel.id, team_id: TEAM, enterprise_id: null }, channel_id: dm, thread_ts: threadTs }, ts: nextTs() });
      return threadTs;
    },
    rateLimitNext(count, retryAfterS) {
      limited = { count, retryAfterS };
    },
    disconnect(reason = 'refresh_requested') {
      for (const socket of sockets) socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake' } }));
    },
    async close() {
      clearInterval(pinger);
      for (const socket of sockets) socket.terminate();
      link.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

/** The Web API's arguments: form fields (JSON-valued ones — blocks — parsed) or a JSON body. */
function parseBody(type: string, raw: string): Record<string, unknown> {
  if (!raw) return {};
  if (type.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    args[key] = /^[[{]/.test(value) ? (JSON.parse(value) as unknown) : value;
  }
  return args;
}
