// Files a person shares with the Slack app (issue 62 §4). Slack names where each file lies; the
// bot token goes only to Slack's own file host (or the API's own origin, where a test's fake
// serves both) — a file whose address points anywhere else is not fetched, so no event can send
// the token to another server. What is fetched is capped at the upload limit and then passes the
// same upload checks as the page's (channel-inbound.ts keeps it or says why not).
import { readEnv } from '@/lib/config/env';
import type { InboundMessage } from './channel-types';
import type { SlackConfig } from './slack-config';

export interface SlackFile {
  id: string;
  name?: string;
  mimetype?: string;
  size?: number;
  url_private_download?: string;
  url_private?: string;
}

type Fetched = NonNullable<InboundMessage['files']>[number];

/** channel-inbound.ts keeps ten files a message. */
const MAX_FETCHED = 11;

/** Whether the bot token may be shown to this address: https on files.slack.com, or the API's own origin. */
export function mayFetchWithToken(url: string, apiRoot: string): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.username || target.password) return false;
  if (target.protocol === 'https:' && target.hostname === 'files.slack.com' && (target.port === '' || target.port === '443')) return true;
  return target.origin === new URL(apiRoot).origin;
}

/** Each file's bytes (at most the upload limit and one byte, so an oversized file is refused by size), or a refusal in its name. */
export async function slackFiles(files: readonly SlackFile[], config: Pick<SlackConfig, 'bot_token' | 'api_root'>): Promise<Fetched[]> {
  const maxBytes = readEnv().AGENTCSD_UPLOAD_MAX_MB * 1024 * 1024;
  const fetched: Fetched[] = [];
  // One past what a message may bring, so the inbound says how many it keeps; the rest are not fetched.
  for (const file of files.slice(0, MAX_FETCHED)) {
    const name = (file.name ?? file.id).slice(0, 200);
    const url = file.url_private_download ?? file.url_private ?? '';
    if (!mayFetchWithToken(url, config.api_root)) {
      fetched.push({ name, claimedType: null, bytes: Buffer.alloc(0), refused: 'not fetched: its address is not Slack’s file host' });
      continue;
    }
    if ((file.size ?? 0) > maxBytes) {
      fetched.push({ name, claimedType: file.mimetype ?? null, bytes: Buffer.alloc(maxBytes + 1) });
      continue;
    }
    const response = await fetch(url, { headers: { authorization: `Bearer ${config.bot_token}` }, redirect: 'error', signal: AbortSignal.timeout(60_000) });
    if (!response.ok || !response.body) throw new Error(`Slack did not hand over ${name}: HTTP ${response.status}`);
    fetched.push({ name, claimedType: file.mimetype ?? null, bytes: await readCapped(response.body, maxBytes + 1) });
  }
  return fetched;
}

async function readCapped(body: ReadableStream<Uint8Array>, cap: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(Buffer.from(value));
    size += value.length;
    if (size >= cap) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, cap);
}
