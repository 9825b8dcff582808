// The Graph API calls a WhatsApp number makes (issue 77 §2, §5), at the pinned version with the
// access token: messages out (text, reply buttons, a template), read receipts with the typing
// indicator, the number's own facts for *Test*, and media in — its URL asked of the Graph API,
// then fetched from Meta's media host only (or the Graph API's own host), under the upload cap. Its
// errors become the outbox's: a rate limit waits (the channel held), the 24-hour window is said
// as such, a bad token or a refused message is permanent; the token never appears in one.
import { readEnv } from '@/lib/config/env';
import { errorText } from '@/lib/errors/error-text';
import { ChannelSendError } from './channel-types';
import { scrubSecret } from './channel-secrets';
import { WHATSAPP_GRAPH_VERSION, type WhatsAppConfig } from './whatsapp-config';

/** Meta's media host: a media URL anywhere else is not fetched (and never given the token). */
const MEDIA_HOSTS = new Set(['lookaside.fbsbx.com']);
/** Rate limits by code (Graph's 4 and 80007, WhatsApp's throughput 130429, a pair's 131056), with how long to hold. */
const RATE_LIMITED: Record<number, number> = { 4: 60_000, 80007: 60_000, 130429: 60_000, 131056: 6_000 };
/** Codes that will not work by trying again: a bad token (190), a bad parameter (100), undeliverable (131026), unsupported (131051), a template wrong (132000–132001). */
const PERMANENT = new Set([100, 190, 131026, 131051, 132000, 132001, 132005, 132007, 132012]);
/** The person's last message is older than 24 hours: only a template may go (131047, "re-engagement message"). */
export const OUTSIDE_WINDOW = 131047;

export class GraphError extends ChannelSendError {
  constructor(
    message: string,
    retryAfterMs: number | null,
    permanent: boolean,
    readonly code: number | null,
  ) {
    super(message, retryAfterMs, permanent);
    this.name = 'GraphError';
  }
}

export class WhatsAppGraph {
  constructor(private readonly config: WhatsAppConfig) {}

  private url(path: string): string {
    return `${this.config.api_root.replace(/\/+$/, '')}/${WHATSAPP_GRAPH_VERSION}/${path}`;
  }

  private scrub(text: string): string {
    return scrubSecret(text, this.config.access_token);
  }

  /** One Graph call; its error in WhatsApp's words, classified for the outbox. */
  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.url(path), {
        method,
        headers: { authorization: `Bearer ${this.config.access_token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new GraphError(`The Graph API did not answer: ${this.scrub(errorText(error))}`, null, false, null);
    }
    const payload = (await response.json().catch(() => null)) as { error?: { message?: string; code?: number; error_data?: { details?: string } } } | null;
    if (response.ok && payload && !payload.error) return payload as T;
    const code = payload?.error?.code ?? null;
    const words = this.scrub([payload?.error?.message, payload?.error?.error_data?.details].filter(Boolean).join(': ') || `HTTP ${response.status}`);
    const message = `WhatsApp refused it (${code ?? response.status}): ${words}`;
    if (response.status === 429 || (code !== null && RATE_LIMITED[code])) throw new GraphError(message, (code !== null && RATE_LIMITED[code]) || 60_000, false, code);
    const permanent = (code !== null && PERMANENT.has(code)) || code === OUTSIDE_WINDOW || (response.status >= 400 && response.status < 500 && code === null);
    throw new GraphError(message, null, permanent, code);
  }

  /** Sends one message to a number → its wamid. */
  async send(to: string, message: Record<string, unknown>): Promise<string> {
    const answer = await this.call<{ messages?: { id: string }[] }>('POST', `${this.config.phone_number_id}/messages`, { messaging_product: 'whatsapp', recipient_type: 'individual', to, ...message });
    return answer.messages?.[0]?.id ?? '';
  }

  /** A file uploaded for sending (a voice reply) → its media id. */
  async upload(bytes: Buffer, mimeType: string, filename: string): Promise<string> {
    const form = new FormData();
    form.set('messaging_product', 'whatsapp');
    form.set('type', mimeType);
    form.set('file', new Blob([new Uint8Array(bytes)], { type: mimeType }), filename);
    let response: Response;
    try {
      response = await fetch(this.url(`${this.config.phone_number_id}/media`), { method: 'POST', headers: { authorization: `Bearer ${this.config.access_token}` }, body: form, signal: AbortSignal.timeout(60_000) });
    } catch (error) {
      throw new GraphError(`The Graph API did not answer: ${this.scrub(errorText(error))}`, null, false, null);
    }
    const payload = (await response.json().catch(() => null)) as { id?: string; error?: { message?: string; code?: number } } | null;
    if (!response.ok || !payload?.id) throw new GraphError(`WhatsApp refused the upload (${payload?.error?.code ?? response.status}): ${this.scrub(payload?.error?.message ?? 'no reason given')}`, null, true, payload?.error?.code ?? null);
    return payload.id;
  }

  /** Their message marked read, and "typing…" shown until we answer (or 25 s). */
  async readAndType(messageId: string): Promise<void> {
    await this.call('POST', `${this.config.phone_number_id}/messages`, { messaging_product: 'whatsapp', status: 'read', message_id: messageId, typing_indicator: { type: 'text' } });
  }

  /** The number as Meta knows it, for *Test* and the Channels page. */
  async number(): Promise<{ display_phone_number?: string; verified_name?: string }> {
    return this.call('GET', `${this.config.phone_number_id}?fields=display_phone_number,verified_name`);
  }

  /** A media file a person sent: its URL from the Graph API, then its bytes from Meta's host with the token, under the upload cap. */
  async media(mediaId: string, claimedSize?: number): Promise<{ bytes: Buffer } | { refused: string }> {
    const maxBytes = readEnv().AGENTCSD_UPLOAD_MAX_MB * 1024 * 1024;
    const tooLarge = `larger than ${readEnv().AGENTCSD_UPLOAD_MAX_MB} MB`;
    if (claimedSize !== undefined && claimedSize > maxBytes) return { refused: tooLarge };
    try {
      const info = await this.call<{ url?: string; file_size?: number }>('GET', encodeURIComponent(mediaId));
      if (!info.url || !URL.canParse(info.url)) return { refused: 'WhatsApp gave no address for it' };
      const url = new URL(info.url);
      const own = new URL(this.config.api_root);
      if (!(url.protocol === 'https:' && MEDIA_HOSTS.has(url.host)) && url.origin !== own.origin) return { refused: `WhatsApp named a file outside Meta's media host (${url.host}): not fetched` };
      if (info.file_size !== undefined && info.file_size > maxBytes) return { refused: tooLarge };
      const response = await fetch(url, { headers: { authorization: `Bearer ${this.config.access_token}` }, redirect: 'error', signal: AbortSignal.timeout(60_000) });
      if (!response.ok) return { refused: `Meta's media host answered ${response.status}` };
      const declared = Number(response.headers.get('content-length') ?? '0');
      if (declared > maxBytes) return { refused: tooLarge };
      const bytes = Buffer.from(await response.arrayBuffer());
      return bytes.length > maxBytes ? { refused: tooLarge } : { bytes };
    } catch (error) {
      return { refused: `it could not be fetched from WhatsApp: ${this.scrub(errorText(error))}` };
    }
  }
}
