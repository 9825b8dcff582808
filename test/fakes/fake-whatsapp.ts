// Meta's WhatsApp Cloud API on loopback (issue 77), from Meta's published reference: the Graph API
// a business number calls — `GET /<version>/<phone-number-id>`, `POST …/messages` (text ≤ 4,096,
// interactive reply buttons: ≤ 3, titles ≤ 20, ids ≤ 256, body ≤ 1,024; templates by approved name;
// `status: read` with `typing_indicator`), `POST …/media` (multipart), `GET /<version>/<media-id>` then
// the file from its URL with the token — and Meta's webhook sender: deliveries as Meta shapes them
// (`object: whatsapp_business_account`, entry › changes › value with metadata, contacts, messages or
// statuses), signed `X-Hub-Signature-256: sha256=<hex HMAC of the body with the app secret>`, sent
// again on any answer but 200, and statuses (sent, delivered, read) for what the app sent. Outside
// the 24-hour window a free-form message is taken, then fails by status (131047), as Meta does.
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentWhatsApp {
  id: string;
  to: string;
  type: string;
  body: Record<string, unknown>;
  at: number;
}

export interface WebhookAttempt {
  kind: 'messages' | 'statuses' | 'raw';
  status: number;
  body: string;
}

interface Person {
  wa_id: string;
  name: string;
}

const GRAPH_VERSION = /^\/v\d+\.\d+\//;
const wamid = () => `wamid.${Buffer.from(randomUUID()).toString('base64url')}`;

export async function startFakeWhatsApp(options: { templates?: string[]; retryDelaysMs?: number[] } = {}) {
  const phoneNumberId = '109876543210987';
  const accessToken = `EAAG${randomUUID().replace(/-/g, '')}`;
  const appSecret = randomUUID().replace(/-/g, '');
  const retryDelays = options.retryDelaysMs ?? [50, 200, 500, 1_000];
  const templates = new Set(options.templates ?? ['agentcsd_update']);
  const sent: SentWhatsApp[] = [];
  const reads: { messageId: string; typing: boolean }[] = [];
  const attempts: WebhookAttempt[] = [];
  const media = new Map<string, { bytes: Uint8Array; mimeType: string }>();
  const lastInbound = new Map<string, number>();
  const failures: { status: number; code: number; message: string }[] = [];
  let webhookUrl = '';
  let autoStatuses = true;

  const error = (response: http.ServerResponse, status: number, code: number, message: string) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type: 'OAuthException', code, error_data: { messaging_product: 'whatsapp', details: message }, fbtrace_id: 'Afake' } }));
  const ok = (response: http.ServerResponse, body: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  /** Meta's webhook: signed, and sent again (a few times, quickly) until it is answered 200. */
  async function deliver(kind: WebhookAttempt['kind'], payload: string, headers: Record<string, string> = { 'x-hub-signature-256': sign(payload) }): Promise<number> {
    let status = 0;
    for (let attempt = 0; attempt <= retryDelays.length; attempt++) {
      const response = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'facebookexternalua', ...headers }, body: payload }).catch(() => null);
      status = response?.status ?? 0;
      attempts.push({ kind, status, body: (await response?.text().catch(() => '')) ?? '' });
      if (status === 200 || kind === 'raw') return status;
      await new Promise((resolve) => setTimeout(resolve, retryDelays[attempt]));
    }
    return status;
  }

  const sign = (payload: string) => `sha256=${createHmac('sha256', appSecret).update(payload).digest('hex')}`;
  const envelope = (value: Record<string, unknown>) =>
    JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '102290129340398', changes: [{ value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550100', phone_number_id: phoneNumberId }, ...value }, field: 'messages' }] }] });

  /** A person's message, delivered as Meta shapes it; its wamid. */
  async function write(from: Person, message: Record<string, unknown>, at = Date.now()): Promise<{ id: string; status: number; payload: string }> {
    const id = wamid();
    lastInbound.set(from.wa_id, at);
    const payload = envelope({ contacts: [{ profile: { name: from.name }, wa_id: from.wa_id }], messages: [{ from: from.wa_id, id, timestamp: String(Math.floor(at / 1000)), ...message }] });
    return { id, status: await deliver('messages', payload), payload };
  }

  function statuses(message: SentWhatsApp, list: { status: string; errors?: unknown[] }[]) {
    const payload = envelope({ statuses: list.map((item) => ({ id: message.id, status: item.status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: message.to, ...(item.errors && { errors: item.errors }) })) });
    return deliver('statuses', payload);
  }

  function check(body: Record<string, unknown>): string | null {
    if (body.messaging_product !== 'whatsapp') return '(#100) The parameter messaging_product is required.';
    if (typeof body.to !== 'string' || !/^\+?\d{5,20}$/.test(body.to)) return '(#100) The parameter to is required.';
    if (body.type === 'text') {
      const text = (body.text ?? {}) as { body?: unknown };
      if (typeof text.body !== 'string' || !text.body) return '(#100) The parameter text[body] is required.';
      if (text.body.length > 4096) return '(#100) Param text[body] must be at most 4096 characters long.';
    } else if (body.type === 'interactive') {
      const interactive = (body.interactive ?? {}) as { type?: string; body?: { text?: string }; action?: { buttons?: { type: string; reply: { id: string; title: string } }[] } };
      const buttons = interactive.action?.buttons ?? [];
      if (interactive.type !== 'button' || buttons.length < 1 || buttons.length > 3) return '(#131009) Parameter value is not valid: buttons must be 1 to 3';
      if (!interactive.body?.text || interactive.body.text.length > 1024) return '(#131009) Parameter value is not valid: body text is at most 1024 characters';
      for (const button of buttons) {
        if (button.type !== 'reply' || !button.reply?.id || button.reply.id.length > 256) return '(#131009) Parameter value is not valid: a button id is 1 to 256 characters';
        if (!button.reply.title || button.reply.title.length > 20) return '(#131009) Parameter value is not valid: a button title is at most 20 characters';
      }
    } else if (body.type === 'template') {
      const template = (body.template ?? {}) as { name?: string; language?: { code?: string }; components?: { parameters?: { text?: string }[] }[] };
      if (!template.name || !templates.has(template.name)) return '(#132001) Template name does not exist in the translation';
      for (const parameter of template.components?.flatMap((component) => component.parameters ?? []) ?? []) {
        if (/[\n\t]| {5,}/.test(parameter.text ?? '')) return '(#132018) Message template parameter contains new-line or tab characters, or more than 4 consecutive spaces';
      }
    } else if (body.type === 'audio') {
      const audio = (body.audio ?? {}) as { id?: string };
      if (!audio.id || !media.has(audio.id)) return '(#131053) Media upload error: no media with that id';
    } else return `(#131051) Unsupported message type: ${String(body.type)}`;
    return null;
  }

  const server = http.createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      const url = new URL(request.url ?? '/', 'http://graph.local');
      if (request.headers.authorization !== `Bearer ${accessToken}`) return error(response, 401, 190, 'Invalid OAuth access token - Cannot parse access token');
      if (request.method === 'GET' && url.pathname.startsWith('/media/')) {
        const file = media.get(url.pathname.slice('/media/'.length));
        if (!file) return error(response, 404, 100, 'Unsupported get request');
        return response.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.bytes.byteLength) }).end(Buffer.from(file.bytes));
      }
      if (!GRAPH_VERSION.test(url.pathname)) return error(response, 400, 2500, 'Unknown path components');
      const path = url.pathname.replace(GRAPH_VERSION, '');
      const failure = failures.shift();
      if (failure) return error(response, failure.status, failure.code, failure.message);
      if (request.method === 'GET' && path === phoneNumberId) return ok(response, { display_phone_number: '+1 555-0100', verified_name: 'AgentCSD Family', id: phoneNumberId });
      if (request.method === 'GET' && media.has(path)) {
        const file = media.get(path)!;
        return ok(response, { messaging_product: 'whatsapp', url: `http://${request.headers.host}/media/${path}`, mime_type: file.mimeType, sha256: 'x', file_size: file.bytes.byteLength, id: path });
      }
      if (request.method === 'POST' && path === `${phoneNumberId}/media`) {
        const form = await new Response(raw, { headers: { 'content-type': request.headers['content-type'] ?? '' } }).formData().catch(() => null);
        const file = form?.get('file');
        if (!form || form.get('messaging_product') !== 'whatsapp' || !(file instanceof Blob)) return error(response, 400, 100, '(#100) The parameter file is required.');
        const id = String(Math.floor(Math.random() * 1e15));
        media.set(id, { bytes: new Uint8Array(await file.arrayBuffer()), mimeType: String(form.get('type') ?? file.type) });
        return ok(response, { id });
      }
      if (request.method === 'POST' && path === `${phoneNumberId}/messages`) {
        const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
        if (body.status === 'read') {
          reads.push({ messageId: String(body.message_id), typing: (body.typing_indicator as { type?: string } | undefined)?.type === 'text' });
          return ok(response, { success: true });
        }
        const refused = check(body);
        if (refused) return error(response, 400, Number(/#(\d+)/.exec(refused)?.[1] ?? 100), refused);
        const message: SentWhatsApp = { id: wamid(), to: String(body.to).replace(/^\+/, ''), type: String(body.type), body, at: Date.now() };
        sent.push(message);
        ok(response, { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: message.to }], messages: [{ id: message.id }] });
        const outside = body.type !== 'template' && Date.now() - (lastInbound.get(message.to) ?? 0) > 24 * 60 * 60 * 1000;
        if (outside) void statuses(message, [{ status: 'failed', errors: [{ code: 131047, title: 'Re-engagement message', message: 'Re-engagement message', error_data: { details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.' } }] }]);
        else if (autoStatuses) void statuses(message, [{ status: 'sent' }, { status: 'delivered' }]);
        return;
      }
      return error(response, 400, 100, `Unsupported ${request.method} request.`);
    })().catch((caught: unknown) => error(response, 500, 1, String(caught)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiRoot,
    phoneNumberId,
    accessToken,
    appSecret,
    sent,
    reads,
    attempts,
    /** Where Meta delivers: the app's `/api/channels/<id>/whatsapp`. */
    setWebhook: (url: string) => void (webhookUrl = url),
    /** Meta's verification handshake, as its webhook form sends it. */
    verify: async (verifyToken: string, challenge = '1158201444') => {
      const response = await fetch(`${webhookUrl}?hub.mode=subscribe&hub.challenge=${challenge}&hub.verify_token=${encodeURIComponent(verifyToken)}`);
      return { status: response.status, body: await response.text() };
    },
    userWrites: (from: Person, text: string, at?: number) => write(from, { type: 'text', text: { body: text } }, at),
    userPresses: (from: Person, id: string, title: string) => write(from, { type: 'interactive', interactive: { type: 'button_reply', button_reply: { id, title } } }),
    userSends: (from: Person, file: { kind: 'audio' | 'image' | 'document'; bytes: Uint8Array; mimeType: string; voice?: boolean; filename?: string; caption?: string }) => {
      const id = String(Math.floor(Math.random() * 1e15));
      media.set(id, { bytes: file.bytes, mimeType: file.mimeType });
      return write(from, { type: file.kind, [file.kind]: { id, mime_type: file.mimeType, sha256: 'x', ...(file.voice !== undefined && { voice: file.voice }), ...(file.filename && { filename: file.filename }), ...(file.caption && { caption: file.caption }) } });
    },
    /** The same delivery again, as Meta does when it doubts it arrived. */
    redeliver: (payload: string) => deliver('messages', payload),
    /** A delivery as given, with these headers (a forgery, an unsigned one). */
    deliverRaw: (payload: string, headers: Record<string, string>) => deliver('raw', payload, headers),
    sign,
    statuses,
    failNext: (status: number, code: number, message: string) => void failures.push({ status, code, message }),
    /** The person's last message is this long ago (the 24-hour window). */
    ageWindow: (waId: string, ms: number) => void lastInbound.set(waId, Date.now() - ms),
    setAutoStatuses: (on: boolean) => void (autoStatuses = on),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type FakeWhatsApp = Awaited<ReturnType<typeof startFakeWhatsApp>>;
