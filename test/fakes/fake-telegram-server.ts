// A Telegram Bot API server on loopback, faithful to https://core.telegram.org/bots/api where our
// tests lean on it: `POST /bot<token>/<method>` with a JSON body; answers `{ok: true, result}` or
// `{ok: false, error_code, description, parameters?}`; an unknown token is 401 Unauthorized.
// getUpdates long-polls up to `timeout` seconds and confirms every update below `offset` (they
// are never returned again); sendMessage checks chat_id, text (1–4096 characters after entity
// parsing) and parse_mode HTML (only the documented tags, balanced — else 400 "can't parse
// entities"), and inline keyboards' callback_data (1–64 bytes); editMessageText,
// editMessageReplyMarkup, answerCallbackQuery and getMe; getFile and `GET /file/bot<token>/<path>`
// for a voice note's bytes (past 20 MB getFile answers "file is too big", as the Bot API does);
// sendVoice as multipart/form-data (the `voice` file must be Ogg/Opus, MP3 or M4A, as documented).
// Tests inject 429 with retry_after and 5xx answers, and play a user (messages, replies, button
// presses, voice notes).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentMessage {
  chatId: string;
  messageId: number;
  text: string;
  parseMode?: string;
  replyMarkup?: { inline_keyboard: { text: string; callback_data?: string }[][] };
  at: number;
}

export interface SentVoice {
  chatId: string;
  messageId: number;
  bytes: Buffer;
  /** The container by its bytes. */
  format: 'ogg-opus' | 'mp3' | 'm4a';
  replyTo?: number;
  at: number;
}

export interface FakeTelegram {
  apiRoot: string;
  /** Voice notes the bot sent (sendVoice). */
  voices: SentVoice[];
  token: string;
  bot: { id: number; username: string };
  sent: SentMessage[];
  /** Every method called, in order, with when and the status answered (for 429/5xx and offset assertions). */
  calls: { method: string; body: Record<string, unknown>; at: number; status?: number }[];
  /** A user writes in a group the bot is in (every message of the group reaches the bot); returns the update id. */
  userWritesInGroup(user: { id: number; username?: string; first_name?: string }, group: { id: number; title: string }, text: string): number;
  /** A user writes to the bot in a private chat; returns the update id. */
  userWrites(user: { id: number; username?: string; first_name?: string }, text: string, replyTo?: number): number;
  /** A user sends a voice note (or an audio file, or a round video) in a private chat; returns the update id. */
  userSpeaks(user: { id: number; username?: string; first_name?: string }, audio: { bytes: Uint8Array; kind?: 'voice' | 'audio'; mimeType?: string; duration?: number; claimedSize?: number }): number;
  /** getFile calls and file downloads, in order. */
  fileRequests: string[];
  /** A user presses a button under one of the bot's messages. */
  userPresses(user: { id: number }, messageId: number, data: string): number;
  /** The next `count` calls of `method` answer this error instead. */
  failNext(method: string, count: number, error: { code: 429; retryAfter: number } | { code: 500 | 502 }): void;
  callbackAnswers: { id: string; text?: string }[];
  /** getUpdates calls answered 409 because another one started meanwhile (two pollers on one bot). */
  conflicts(): number;
  /** Telegram's flood limit, played: more than `perSecond` sendMessage calls in a second get 429 retry_after 1. */
  throttle(perSecond: number | null): void;
  close(): Promise<void>;
}

const allowedTags = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'span', 'tg-spoiler', 'a', 'code', 'pre', 'blockquote', 'tg-emoji']);

/** Telegram's HTML entity parsing: the text without tags, or null when it cannot be parsed. */
function parseHtml(html: string): string | null {
  const stack: string[] = [];
  let text = '';
  const pattern = /<(\/?)([a-z-]+)([^>]*)>|&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);|([<>])|([^<&]+|&)/gi;
  for (const match of html.matchAll(pattern)) {
    if (match[2]) {
      const tag = match[2].toLowerCase();
      if (!allowedTags.has(tag)) return null;
      if (match[1]) {
        if (stack.pop() !== tag) return null;
      } else stack.push(tag);
    } else if (match[4]) text += { lt: '<', gt: '>', amp: '&', quot: '"' }[match[4].toLowerCase()] ?? '?';
    else if (match[5]) return null; // a bare < or > is a parse error
    else text += match[6];
  }
  return stack.length === 0 ? text : null;
}

/**
 * A multipart body as the Bot API reads it — leniently, as grammY writes it (`name=` without a space,
 * an unquoted filename) where undici's FormData refuses it: fields as strings, files as bytes, and a
 * field saying `attach://<name>` replaced by the file part of that name (grammY sends files so).
 */
function multipartFields(body: Buffer, contentType: string): Record<string, unknown> {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) throw new Error('no boundary');
  const parts: Record<string, string | Buffer> = {};
  const delimiter = Buffer.from(`--${boundary}`);
  for (let at = body.indexOf(delimiter); at >= 0; ) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    const part = body.subarray(at + delimiter.length + 2, next - 2); // past CRLF, before the CRLF of the next delimiter
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) throw new Error('a part without headers');
    const headers = part.subarray(0, split).toString('utf8');
    const name = /name="([^"]*)"|name=([^;\r\n]+)/i.exec(headers);
    if (!name) throw new Error('a part without a name');
    const content = part.subarray(split + 4);
    parts[name[1] ?? name[2]!.trim()] = /filename=/i.test(headers) ? Buffer.from(content) : content.toString('utf8');
    at = next;
  }
  const attached = (value: string | Buffer) => (typeof value === 'string' && value.startsWith('attach://') ? (parts[value.slice('attach://'.length)] ?? value) : value);
  return Object.fromEntries(Object.entries(parts).map(([key, value]) => [key, attached(value)]));
}

export async function startFakeTelegram(options: { token?: string } = {}): Promise<FakeTelegram> {
  const token = options.token ?? '123456789:AAFakeTokenForTestsOnly_abcdefghijk';
  const bot = { id: 987654321, username: 'agentcsd_test_bot' };
  const updates: Record<string, unknown>[] = [];
  let nextUpdateId = 500_000;
  let nextMessageId = 1;
  const waiters = new Set<() => void>();
  const failures = new Map<string, { count: number; error: { code: number; retryAfter?: number } }>();
  let perSecond: number | null = null;
  let conflicts = 0;
  /** The long poll waiting now: a new getUpdates ends it with 409, as the Bot API does. */
  let polling: (() => void) | null = null;
  const recentSends: number[] = [];
  const files = new Map<string, { bytes: Uint8Array; path: string; size: number }>();
  const fileRequests: string[] = [];
  const fake = { sent: [] as SentMessage[], voices: [] as SentVoice[], calls: [] as FakeTelegram['calls'], callbackAnswers: [] as FakeTelegram['callbackAnswers'] };

  const push = (update: Record<string, unknown>) => {
    updates.push(update);
    for (const wake of waiters) wake();
    return update.update_id as number;
  };

  const methods: Record<string, (body: Record<string, unknown>, response: http.ServerResponse) => Promise<unknown> | unknown> = {
    getMe: () => ({ id: bot.id, is_bot: true, first_name: 'AgentCSD test', username: bot.username }),
    getUpdates: async (body, response) => {
      const offset = typeof body.offset === 'number' ? body.offset : 0;
      // Confirmed: gone for good (the Bot API forgets updates below the offset).
      while (updates.length > 0 && (updates[0]!.update_id as number) < offset) updates.shift();
      polling?.(); // only one getUpdates at a time per bot
      if (updates.length === 0 && Number(body.timeout ?? 0) > 0) {
        const ended = await new Promise<'conflict' | 'done'>((resolve) => {
          const timer = setTimeout(done, Number(body.timeout) * 1000);
          function done() {
            clearTimeout(timer);
            waiters.delete(done);
            if (polling === conflict) polling = null;
            resolve('done');
          }
          function conflict() {
            clearTimeout(timer);
            waiters.delete(done);
            polling = null;
            resolve('conflict');
          }
          waiters.add(done);
          polling = conflict;
          // The client went away (aborted, or its process died): not a poller any more.
          response.once('close', () => !response.writableFinished && done());
        });
        if (ended === 'conflict') {
          conflicts++;
          throw { code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' };
        }
      }
      return updates.filter((update) => (update.update_id as number) >= offset).slice(0, Number(body.limit ?? 100));
    },
    sendMessage: (body) => {
      const text = String(body.text ?? '');
      if (body.chat_id === undefined || body.chat_id === '') throw { code: 400, description: 'Bad Request: chat_id is empty' };
      const plain = body.parse_mode === 'HTML' ? parseHtml(text) : text;
      if (plain === null) throw { code: 400, description: "Bad Request: can't parse entities: unsupported start tag or unclosed tag" };
      if (plain.trim().length === 0) throw { code: 400, description: 'Bad Request: message text is empty' };
      if (plain.length > 4096) throw { code: 400, description: 'Bad Request: message is too long' };
      const markup = body.reply_markup as SentMessage['replyMarkup'] | undefined;
      for (const row of markup?.inline_keyboard ?? []) for (const button of row) if (button.callback_data !== undefined && (Buffer.byteLength(button.callback_data) < 1 || Buffer.byteLength(button.callback_data) > 64)) throw { code: 400, description: 'Bad Request: BUTTON_DATA_INVALID' };
      const message: SentMessage = { chatId: String(body.chat_id), messageId: nextMessageId++, text, ...(typeof body.parse_mode === 'string' && { parseMode: body.parse_mode }), ...(markup && { replyMarkup: markup }), at: Date.now() };
      fake.sent.push(message);
      return { message_id: message.messageId, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, text: plain };
    },
    editMessageText: (body) => {
      const message = fake.sent.find((sent) => sent.messageId === body.message_id && sent.chatId === String(body.chat_id));
      if (!message) throw { code: 400, description: 'Bad Request: message to edit not found' };
      message.text = String(body.text);
      return { message_id: message.messageId, date: 0, chat: { id: Number(body.chat_id), type: 'private' }, text: message.text };
    },
    editMessageReplyMarkup: (body) => {
      const message = fake.sent.find((sent) => sent.messageId === body.message_id && sent.chatId === String(body.chat_id));
      if (!message) throw { code: 400, description: 'Bad Request: message to edit not found' };
      message.replyMarkup = body.reply_markup as SentMessage['replyMarkup'];
      return true;
    },
    getFile: (body) => {
      const file = files.get(String(body.file_id));
      fileRequests.push(`getFile ${String(body.file_id)}`);
      if (!file) throw { code: 400, description: 'Bad Request: invalid file_id' };
      if (file.size > 20 * 1024 * 1024) throw { code: 400, description: 'Bad Request: file is too big' };
      return { file_id: body.file_id, file_unique_id: `u${String(body.file_id)}`, file_size: file.size, file_path: file.path };
    },
    sendVoice: (body) => {
      if (body.chat_id === undefined || body.chat_id === '') throw { code: 400, description: 'Bad Request: chat_id is empty' };
      const file = body.voice;
      if (!(file instanceof Buffer) || file.byteLength === 0) throw { code: 400, description: 'Bad Request: there is no voice in the request' };
      const format = file.toString('latin1', 0, 4) === 'OggS' && file.includes('OpusHead') ? 'ogg-opus' : file.toString('latin1', 0, 3) === 'ID3' || (file[0] === 0xff && (file[1]! & 0xe0) === 0xe0) ? 'mp3' : file.toString('latin1', 4, 8) === 'ftyp' ? 'm4a' : null;
      if (!format) throw { code: 400, description: 'Bad Request: wrong file type: a voice note is OGG/Opus, MP3 or M4A' };
      const replyTo = typeof body.reply_parameters === 'string' ? (JSON.parse(body.reply_parameters) as { message_id?: number }).message_id : undefined;
      const voice: SentVoice = { chatId: String(body.chat_id), messageId: nextMessageId++, bytes: file, format, ...(replyTo && { replyTo }), at: Date.now() };
      fake.voices.push(voice);
      return { message_id: voice.messageId, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, voice: { file_id: `sent-voice-${voice.messageId}`, file_unique_id: `sv${voice.messageId}`, duration: 1, mime_type: 'audio/ogg', file_size: file.byteLength } };
    },
    answerCallbackQuery: (body) => {
      fake.callbackAnswers.push({ id: String(body.callback_query_id), ...(typeof body.text === 'string' && { text: body.text }) });
      return true;
    },
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const answer = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(request.url ?? '');
      if (download && request.method === 'GET') {
        fileRequests.push(`download ${download[2]}`);
        const file = download[1] === token ? [...files.values()].find((candidate) => candidate.path === download[2]) : undefined;
        if (!file) return answer(404, { ok: false, error_code: 404, description: 'Not Found' });
        return response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.bytes.byteLength) }).end(Buffer.from(file.bytes));
      }
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(request.url ?? '');
      if (!match) return answer(404, { ok: false, error_code: 404, description: 'Not Found' });
      if (match[1] !== token) return answer(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const method = match[2]!;
      let body: Record<string, unknown> = {};
      const contentType = request.headers['content-type'] ?? '';
      try {
        if (contentType.startsWith('multipart/form-data')) {
          // A file upload (sendVoice): fields as strings (objects JSON-encoded), files as their bytes.
          body = multipartFields(Buffer.concat(chunks), contentType);
        } else body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      } catch {
        return answer(400, { ok: false, error_code: 400, description: 'Bad Request: invalid JSON' });
      }
      const call: FakeTelegram['calls'][number] = { method, body, at: Date.now() };
      fake.calls.push(call);
      const failure = failures.get(method);
      if (failure && failure.count > 0) {
        failure.count--;
        call.status = failure.error.code;
        if (failure.error.code === 429) return answer(429, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${failure.error.retryAfter}`, parameters: { retry_after: failure.error.retryAfter } });
        return answer(failure.error.code, { ok: false, error_code: failure.error.code, description: 'Internal Server Error' });
      }
      if (method === 'sendMessage' && perSecond !== null) {
        const now = Date.now();
        while (recentSends.length > 0 && recentSends[0]! <= now - 1000) recentSends.shift();
        if (recentSends.length >= perSecond) {
          call.status = 429;
          return answer(429, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
        }
        recentSends.push(now);
      }
      const handler = methods[method];
      if (!handler) return answer(404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
      try {
        answer(200, { ok: true, result: await handler(body, response) });
      } catch (error) {
        const { code, description } = error as { code: number; description: string };
        answer(code ?? 500, { ok: false, error_code: code ?? 500, description: description ?? String(error) });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    bot,
    ...fake,
    userWrites(user, text, replyTo) {
      const from = { id: user.id, is_bot: false, first_name: user.first_name ?? 'Ana', ...(user.username && { username: user.username }) };
      return push({
        update_id: nextUpdateId++,
        message: { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: user.id, type: 'private', first_name: from.first_name }, from, text, ...(replyTo && { reply_to_message: { message_id: replyTo, date: 0, chat: { id: user.id, type: 'private' } } }) },
      });
    },
    fileRequests,
    userSpeaks(user, audio) {
      const from = { id: user.id, is_bot: false, first_name: user.first_name ?? 'Ana', ...(user.username && { username: user.username }) };
      const fileId = `AwACAgQAAxkBAAI${files.size + 1}`;
      const kind = audio.kind ?? 'voice';
      files.set(fileId, { bytes: audio.bytes, path: `${kind === 'voice' ? 'voice' : 'music'}/file_${files.size + 1}.${kind === 'voice' ? 'oga' : 'ogg'}`, size: audio.claimedSize ?? audio.bytes.byteLength });
      const media = { file_id: fileId, file_unique_id: `u${fileId}`, duration: audio.duration ?? 2, mime_type: audio.mimeType ?? 'audio/ogg', file_size: audio.claimedSize ?? audio.bytes.byteLength, ...(kind === 'audio' && { file_name: 'recording.ogg' }) };
      return push({
        update_id: nextUpdateId++,
        message: { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: user.id, type: 'private', first_name: from.first_name }, from, [kind]: media },
      });
    },
    userWritesInGroup(user, group, text) {
      const from = { id: user.id, is_bot: false, first_name: user.first_name ?? 'Ana', ...(user.username && { username: user.username }) };
      return push({
        update_id: nextUpdateId++,
        message: { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: group.id, type: 'supergroup', title: group.title }, from, text },
      });
    },
    userPresses(user, messageId, data) {
      const sent = fake.sent.find((message) => message.messageId === messageId);
      return push({
        update_id: nextUpdateId++,
        callback_query: { id: `cb${nextUpdateId}`, from: { id: user.id, is_bot: false, first_name: 'Ana' }, chat_instance: 'x', data, message: { message_id: messageId, date: 0, chat: { id: Number(sent?.chatId ?? user.id), type: 'private' }, text: sent?.text ?? '' } },
      });
    },
    conflicts: () => conflicts,
    throttle(limit) {
      perSecond = limit;
    },
    failNext(method, count, error) {
      failures.set(method, { count, error: error.code === 429 ? { code: 429, retryAfter: error.retryAfter } : { code: error.code } });
    },
    async close() {
      for (const wake of waiters) wake();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
