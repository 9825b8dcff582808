// A voice note (or an audio file, or a round video's sound) sent to the Telegram bot (issue 76 §2):
// its bytes fetched through the Bot API — getFile, then the file from the API's own host, the only
// place the token goes — capped at the upload limit before anything is read. What cannot be
// fetched says why; the message still reaches channel-inbound.ts, which tells the person.
import type { Api } from 'grammy';
import type { Message } from 'grammy/types';
import { readEnv } from '@/lib/config/env';
import { errorText } from '@/lib/errors/error-text';
import type { InboundMessage } from './channel-types';

type Voice = NonNullable<InboundMessage['voice']>;

/** The spoken part of a message, if it has one: voice notes, audio files, round videos. */
export function spokenMedia(message: Message): { fileId: string; size?: number; mimeType: string; name: string; seconds?: number } | null {
  if (message.voice) return { fileId: message.voice.file_id, size: message.voice.file_size, mimeType: message.voice.mime_type ?? 'audio/ogg', name: 'voice-note.ogg', seconds: message.voice.duration };
  if (message.audio) return { fileId: message.audio.file_id, size: message.audio.file_size, mimeType: message.audio.mime_type ?? 'audio/mpeg', name: message.audio.file_name ?? 'audio', seconds: message.audio.duration };
  if (message.video_note) return { fileId: message.video_note.file_id, size: message.video_note.file_size, mimeType: 'video/mp4', name: 'video-note.mp4', seconds: message.video_note.duration };
  return null;
}

export async function fetchSpoken(api: Api, config: { token: string; api_root?: string }, media: NonNullable<ReturnType<typeof spokenMedia>>, scrub: (text: string) => string): Promise<Voice> {
  const maxBytes = readEnv().AGENTCSD_UPLOAD_MAX_MB * 1024 * 1024;
  const base = { name: media.name, claimedType: media.mimeType, bytes: Buffer.alloc(0), ...(media.seconds !== undefined && { seconds: media.seconds }) };
  const tooLarge = `the recording is larger than ${readEnv().AGENTCSD_UPLOAD_MAX_MB} MB`;
  if (media.size !== undefined && media.size > maxBytes) return { ...base, refused: tooLarge };
  try {
    const file = await api.getFile(media.fileId);
    if (!file.file_path) return { ...base, refused: 'Telegram gave no file for it' };
    if (file.file_size !== undefined && file.file_size > maxBytes) return { ...base, refused: tooLarge };
    const root = (config.api_root ?? 'https://api.telegram.org').replace(/\/+$/, '');
    const response = await fetch(`${root}/file/bot${config.token}/${file.file_path}`, { signal: AbortSignal.timeout(60_000) });
    if (!response.ok) return { ...base, refused: `Telegram answered ${response.status} for the file` };
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > maxBytes) return { ...base, refused: tooLarge };
    return { ...base, bytes };
  } catch (error) {
    return { ...base, refused: `it could not be fetched from Telegram: ${scrub(errorText(error))}` };
  }
}
