// A Discord voice message (issue 76 §2): the app's microphone button sends one Ogg/Opus attachment
// (flags IS_VOICE_MESSAGE); an audio file attached to a DM is heard the same way. Fetched only from
// Discord's own CDN over HTTPS (or, where a test points the API at a fake, that API's own origin) —
// an attachment naming any other address is not fetched — and capped at the upload limit by the
// size Discord states, then by the bytes. channel-inbound.ts hears it or says why not.
import type { Message } from 'discord.js';
import { readEnv } from '@/lib/config/env';
import { errorText } from '@/lib/errors/error-text';
import type { InboundMessage } from './channel-types';

const CDN_HOSTS = new Set(['cdn.discordapp.com', 'media.discordapp.net']);

/** Whether an attachment's address is Discord's CDN (https, its own hosts) or the configured API's own origin. */
export function mayFetchAttachment(url: string, apiRoot: string): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.username || target.password) return false;
  if (target.protocol === 'https:' && CDN_HOSTS.has(target.hostname) && (target.port === '' || target.port === '443')) return true;
  return target.origin === new URL(apiRoot).origin;
}

/** The message's recording, fetched, or null when it has none. */
export async function discordVoice(message: Pick<Message, 'attachments'>, apiRoot: string): Promise<InboundMessage['voice'] | null> {
  const attachment = [...message.attachments.values()].find((candidate) => (candidate.contentType ?? '').startsWith('audio/'));
  if (!attachment) return null;
  const maxBytes = readEnv().AGENTCSD_UPLOAD_MAX_MB * 1024 * 1024;
  const base = { name: attachment.name || 'voice-message.ogg', claimedType: attachment.contentType, bytes: Buffer.alloc(0), ...(attachment.duration !== null && { seconds: attachment.duration }) };
  if (attachment.size > maxBytes) return { ...base, refused: `the recording is larger than ${readEnv().AGENTCSD_UPLOAD_MAX_MB} MB` };
  if (!mayFetchAttachment(attachment.url, apiRoot)) return { ...base, refused: 'not fetched: its address is not Discord’s' };
  try {
    const response = await fetch(attachment.url, { signal: AbortSignal.timeout(60_000), redirect: 'error' });
    if (!response.ok) return { ...base, refused: `Discord answered ${response.status} for the file` };
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > maxBytes) return { ...base, refused: `the recording is larger than ${readEnv().AGENTCSD_UPLOAD_MAX_MB} MB` };
    return { ...base, bytes };
  } catch (error) {
    return { ...base, refused: `it could not be fetched from Discord: ${errorText(error)}` };
  }
}
