// A Discord API on loopback, faithful to https://discord.com/developers/docs where our tests lean on
// it. The Gateway (WebSocket, JSON, API v10): HELLO with a heartbeat interval, IDENTIFY (a wrong
// token closes 4004), HEARTBEAT answered by HEARTBEAT_ACK, READY with a session id and a resume
// URL, GUILD_CREATE for each guild, dispatches numbered by `s`, RESUME replaying what the session
// missed then RESUMED; the tests drop the connection to make the client resume. REST (`/api/v10`,
// `Authorization: Bot <token>`, else 401): GET /gateway/bot, GET /users/@me, GET /applications/@me, GET /users/:id,
// POST /users/@me/channels (a DM), GET /channels/:id, POST /channels/:id/messages (content 1–2000
// characters, components: buttons with custom_id ≤ 100), PUT /applications/:id/commands,
// POST /interactions/:id/:token/callback. A 429 carries `retry_after` (seconds) in the body and
// `Retry-After` / `X-RateLimit-*` headers, as Discord sends them. A voice message (flags
// IS_VOICE_MESSAGE, one Ogg/Opus attachment with duration and waveform) is served from
// `/attachments/…` on the same server, as Discord's CDN serves it: no token asked.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface DiscordUser {
  id: string;
  username: string;
}

export interface DiscordSent {
  channelId: string;
  id: string;
  content: string;
  components: { type: number; components: { type: number; style?: number; label?: string; custom_id?: string }[] }[];
  at: number;
}

export interface FakeDiscord {
  apiRoot: string;
  token: string;
  bot: DiscordUser;
  applicationId: string;
  guild: { id: string; name: string; channel: { id: string; name: string } };
  sent: DiscordSent[];
  /** Every REST call, in order, with its status (429s included). */
  calls: { method: string; path: string; status: number; at: number }[];
  /** Answers given to interactions (a button's or a command's reply). */
  interactionReplies: { interactionId: string; type: number; content?: string; ephemeral: boolean }[];
  commands: { name: string; description: string }[];
  identifies(): number;
  resumes(): number;
  /** The most Gateway sessions live at once (two processes running one bot would make it 2). */
  maxLive(): number;
  /** A user writes to the bot in a DM. */
  userWrites(user: DiscordUser, text: string): string;
  /** A user sends a voice message in their DM (the app's microphone button); returns its id. */
  userSpeaks(user: DiscordUser, bytes: Uint8Array, options?: { size?: number }): string;
  /** Attachment downloads, by path. */
  downloads: string[];
  /** A user writes in the guild's channel; `mention` puts the bot in the message's mentions. */
  userWritesInGuild(user: DiscordUser, text: string, mention: boolean): string;
  /** A user presses a button under a message the bot sent (in the DM it was sent to). */
  userPresses(user: DiscordUser, message: DiscordSent, customId: string): string;
  /** A user runs a slash command in their DM with the bot. */
  userRuns(user: DiscordUser, command: string, options?: Record<string, string>): string;
  /** The next `count` POSTs of messages answer 429 with this retry_after (seconds). */
  rateLimitNext(count: number, retryAfterS: number): void;
  /** Drops every Gateway connection without a close frame (the client must resume). */
  dropGateway(): void;
  dmChannelOf(userId: string): string;
  close(): Promise<void>;
}

let snowflake = 1_200_000_000_000_000_000n;
const nextId = () => String(++snowflake);
const TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GfAkEd.fake-discord-bot-token-0123456789ab';

export async function startFakeDiscord(options: { heartbeatMs?: number } = {}): Promise<FakeDiscord> {
  const bot: DiscordUser = { id: nextId(), username: 'agentcsd_test_bot' };
  const applicationId = bot.id;
  const guild = { id: nextId(), name: 'Test guild', channel: { id: nextId(), name: 'general' } };
  const users = new Map<string, DiscordUser>();
  const dms = new Map<string, string>(); // user id → DM channel id
  const sent: DiscordSent[] = [];
  const calls: FakeDiscord['calls'] = [];
  const interactionReplies: FakeDiscord['interactionReplies'] = [];
  let commands: FakeDiscord['commands'] = [];
  let limited = { count: 0, retryAfterS: 1 };
  let identifies = 0;
  let resumes = 0;
  let maxLive = 0;
  // The session: its dispatches numbered, kept for RESUME.
  let sessionId = '';
  let seq = 0;
  const log: { s: number; payload: string }[] = [];
  const sockets = new Set<WebSocket>();
  const live = new Set<WebSocket>(); // identified or resumed

  const userJson = (user: DiscordUser) => ({ id: user.id, username: user.username, global_name: user.username, discriminator: '0', avatar: null, bot: user.id === bot.id });
  const dmChannel = (userId: string) => {
    let id = dms.get(userId);
    if (!id) dms.set(userId, (id = nextId()));
    return id;
  };
  const channelJson = (id: string) => {
    if (id === guild.channel.id) return { id, type: 0, guild_id: guild.id, name: guild.channel.name, position: 0, permission_overwrites: [] };
    const userId = [...dms].find(([, channel]) => channel === id)?.[0];
    return userId ? { id, type: 1, recipients: [userJson(users.get(userId)!)] } : null;
  };
  const dispatch = (t: string, d: unknown) => {
    const s = ++seq;
    const payload = JSON.stringify({ op: 0, t, s, d });
    log.push({ s, payload });
    for (const socket of live) socket.send(payload);
  };

  const attachments = new Map<string, Uint8Array>();
  const downloads: string[] = [];
  const server = http.createServer((request, response) => {
    const file = request.method === 'GET' ? attachments.get(new URL(request.url!, 'http://x').pathname) : undefined;
    if (file) {
      downloads.push(new URL(request.url!, 'http://x').pathname);
      response.writeHead(200, { 'content-type': 'audio/ogg', 'content-length': String(file.byteLength) }).end(Buffer.from(file));
      return;
    }
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const url = new URL(request.url!, 'http://x');
      const route = url.pathname.replace(/^\/api\/v10/, '');
      const answer = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
        calls.push({ method: request.method!, path: route, status, at: Date.now() });
        response.writeHead(status, { ...(status !== 204 && { 'content-type': 'application/json' }), 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset-after': '1', 'x-ratelimit-bucket': 'fake', ...headers });
        response.end(json === undefined ? '' : JSON.stringify(json));
      };
      const interaction = /^\/interactions\/(\d+)\/([\w.-]+)\/callback$/.exec(route);
      if (interaction && request.method === 'POST') {
        const { type, data } = JSON.parse(body || '{}') as { type: number; data?: { content?: string; flags?: number } };
        interactionReplies.push({ interactionId: interaction[1]!, type, content: data?.content, ephemeral: ((data?.flags ?? 0) & 64) === 64 });
        return answer(204);
      }
      if (request.headers.authorization !== `Bot ${TOKEN}`) return answer(401, { message: '401: Unauthorized', code: 0 });
      let parsed: Record<string, unknown> = {};
      try {
        parsed = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      } catch {
        return answer(400, { message: 'Invalid JSON', code: 50109 });
      }
      if (request.method === 'GET' && route === '/gateway/bot') {
        const { port } = server.address() as AddressInfo;
        return answer(200, { url: `ws://127.0.0.1:${port}/gateway`, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } });
      }
      if (request.method === 'GET' && route === '/users/@me') return answer(200, userJson(bot));
      // GATEWAY_MESSAGE_CONTENT_LIMITED: the intent is switched on in the Developer Portal.
      if (request.method === 'GET' && route === '/applications/@me') return answer(200, { id: applicationId, name: 'AgentCSD test', flags: 1 << 19, bot: userJson(bot) });
      const user = /^\/users\/(\d+)$/.exec(route);
      if (request.method === 'GET' && user) return users.has(user[1]!) ? answer(200, userJson(users.get(user[1]!)!)) : answer(404, { message: 'Unknown User', code: 10013 });
      if (request.method === 'POST' && route === '/users/@me/channels') {
        const recipient = String(parsed.recipient_id ?? '');
        return users.has(recipient) ? answer(200, channelJson(dmChannel(recipient))) : answer(400, { message: 'Invalid Recipient(s)', code: 50033 });
      }
      const channel = /^\/channels\/(\d+)$/.exec(route);
      if (request.method === 'GET' && channel) {
        const found = channelJson(channel[1]!);
        return found ? answer(200, found) : answer(404, { message: 'Unknown Channel', code: 10003 });
      }
      const messages = /^\/channels\/(\d+)\/messages$/.exec(route);
      if (request.method === 'POST' && messages) {
        if (limited.count > 0) {
          limited.count--;
          return answer(429, { message: 'You are being rate limited.', retry_after: limited.retryAfterS, global: false }, { 'retry-after': String(Math.ceil(limited.retryAfterS)), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': String(limited.retryAfterS), 'x-ratelimit-scope': 'user' });
        }
        if (!channelJson(messages[1]!)) return answer(404, { message: 'Unknown Channel', code: 10003 });
        const content = String(parsed.content ?? '');
        const components = (parsed.components ?? []) as DiscordSent['components'];
        if (!content && components.length === 0) return answer(400, { message: 'Cannot send an empty message', code: 50006 });
        if (content.length > 2000) return answer(400, { message: 'Invalid Form Body', code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } });
        if (components.some((row) => row.components.some((button) => (button.custom_id ?? '').length > 100))) return answer(400, { message: 'Invalid Form Body', code: 50035 });
        const message: DiscordSent = { channelId: messages[1]!, id: nextId(), content, components, at: Date.now() };
        sent.push(message);
        return answer(200, { id: message.id, channel_id: message.channelId, content, components, author: userJson(bot), timestamp: new Date().toISOString(), edited_timestamp: null, tts: false, mention_everyone: false, mentions: [], mention_roles: [], attachments: [], embeds: [], pinned: false, type: 0 });
      }
      const commandsRoute = /^\/applications\/(\d+)\/commands$/.exec(route);
      if (request.method === 'PUT' && commandsRoute) {
        commands = (JSON.parse(body) as { name: string; description: string }[]).map((command) => ({ name: command.name, description: command.description }));
        return answer(200, commands.map((command) => ({ ...command, id: nextId(), application_id: applicationId, type: 1, version: nextId() })));
      }
      return answer(404, { message: '404: Not Found', code: 0 });
    });
  });

  const gateway = new WebSocketServer({ server, path: '/gateway' });
  gateway.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => (sockets.delete(socket), live.delete(socket)));
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: options.heartbeatMs ?? 2_000 } }));
    socket.on('message', (raw) => {
      const { op, d } = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> | number | null };
      if (op === 1) return socket.send(JSON.stringify({ op: 11 }));
      if (op === 2) {
        const identify = d as { token: string; intents: number };
        if (identify.token !== TOKEN) return socket.close(4004, 'Authentication failed.');
        identifies++;
        sessionId = nextId();
        seq = 0;
        log.length = 0;
        live.add(socket);
        maxLive = Math.max(maxLive, live.size);
        const { port } = server.address() as AddressInfo;
        dispatch('READY', { v: 10, user: userJson(bot), guilds: [{ id: guild.id, unavailable: true }], session_id: sessionId, resume_gateway_url: `ws://127.0.0.1:${port}/gateway`, application: { id: applicationId, flags: 0 }, shard: [0, 1] });
        dispatch('GUILD_CREATE', {
          id: guild.id,
          name: guild.name,
          unavailable: false,
          owner_id: nextId(),
          member_count: 2,
          roles: [{ id: guild.id, name: '@everyone', permissions: '0', position: 0, color: 0, hoist: false, managed: false, mentionable: false }],
          channels: [channelJson(guild.channel.id)],
          members: [],
          emojis: [],
          stickers: [],
          features: [],
          threads: [],
          presences: [],
          voice_states: [],
        });
        return;
      }
      if (op === 6) {
        const resume = d as { token: string; session_id: string; seq: number };
        if (resume.token !== TOKEN || resume.session_id !== sessionId) return socket.send(JSON.stringify({ op: 9, d: false }));
        resumes++;
        live.add(socket);
        for (const entry of log.filter((logged) => logged.s > resume.seq)) socket.send(entry.payload);
        dispatch('RESUMED', {});
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const remember = (user: DiscordUser) => users.set(user.id, user);
  const messageJson = (user: DiscordUser, channelId: string, content: string, extra: Record<string, unknown> = {}) => ({
    id: nextId(),
    channel_id: channelId,
    // The Gateway says what kind of channel a message is in (a DM's channel is not in any guild).
    channel_type: channelJson(channelId)?.type ?? 0,
    author: userJson(user),
    content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: 0,
    ...extra,
  });
  const interactionBase = (user: DiscordUser) => ({ id: nextId(), application_id: applicationId, token: `token-${nextId()}`, version: 1, channel_id: dmChannel(user.id), channel: channelJson(dmChannel(user.id)), user: userJson(user), locale: 'en-US', app_permissions: '0', entitlements: [], authorizing_integration_owners: {}, context: 1 });

  return {
    apiRoot: `http://127.0.0.1:${port}/api`,
    token: TOKEN,
    bot,
    applicationId,
    guild,
    sent,
    calls,
    interactionReplies,
    get commands() {
      return commands;
    },
    identifies: () => identifies,
    resumes: () => resumes,
    maxLive: () => maxLive,
    userWrites(user, text) {
      remember(user);
      const message = messageJson(user, dmChannel(user.id), text);
      dispatch('MESSAGE_CREATE', message);
      return message.id;
    },
    downloads,
    userSpeaks(user, bytes, options = {}) {
      remember(user);
      const id = nextId();
      const path = `/attachments/${dmChannel(user.id)}/${id}/voice-message.ogg`;
      attachments.set(path, bytes);
      const url = `http://127.0.0.1:${port}${path}`;
      const attachment = { id, filename: 'voice-message.ogg', size: options.size ?? bytes.byteLength, url, proxy_url: url, content_type: 'audio/ogg', duration_secs: 2.5, waveform: 'AAAAAAAAAAAA' };
      const message = messageJson(user, dmChannel(user.id), '', { flags: 8192, attachments: [attachment] });
      dispatch('MESSAGE_CREATE', message);
      return message.id;
    },
    userWritesInGuild(user, text, mention) {
      remember(user);
      const content = mention ? `<@${bot.id}> ${text}` : text;
      const message = messageJson(user, guild.channel.id, content, { guild_id: guild.id, member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 }, mentions: mention ? [userJson(bot)] : [] });
      dispatch('MESSAGE_CREATE', message);
      return message.id;
    },
    userPresses(user, message, customId) {
      remember(user);
      const interaction = { ...interactionBase(user), type: 3, channel_id: message.channelId, channel: channelJson(message.channelId), data: { custom_id: customId, component_type: 2 }, message: { ...messageJson(bot, message.channelId, message.content), id: message.id, components: message.components } };
      dispatch('INTERACTION_CREATE', interaction);
      return interaction.id;
    },
    userRuns(user, command, commandOptions = {}) {
      remember(user);
      const options = Object.entries(commandOptions).map(([name, value]) => ({ name, type: 3, value }));
      const interaction = { ...interactionBase(user), type: 2, data: { id: nextId(), name: command, type: 1, ...(options.length > 0 && { options }) } };
      dispatch('INTERACTION_CREATE', interaction);
      return interaction.id;
    },
    rateLimitNext(count, retryAfterS) {
      limited = { count, retryAfterS };
    },
    dropGateway() {
      for (const socket of sockets) socket.terminate();
    },
    dmChannelOf: (userId) => dmChannel(userId),
    async close() {
      for (const socket of sockets) socket.terminate();
      gateway.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
