// A voice note from a chat, heard (issue 76 §2): transcribed on the speech server Settings › Voice
// names; what goes wrong — no server, a recording not fetched, a refusal — comes back as words for
// the person, and the recording is kept all the same (channel-inbound.ts). A chat's attached
// recording (a Slack audio clip, a mail's voice memo) is heard the same way: known by its bytes.
import { sniffAudio } from '@/lib/attachments/file-kind';
import { errorText } from '@/lib/errors/error-text';
import { transcribeFor } from '@/lib/voice/speech-meter';
import { transcriptionServer } from '@/lib/voice/voice-settings';
import type { InboundMessage } from './channel-types';

export type Heard = { text: string } | { problem: string };

/** The voice note heard for a conversation (its minutes counted on the conversation's allowances). */
export async function hearVoiceNote(sessionId: string, voice: NonNullable<InboundMessage['voice']>): Promise<Heard> {
  if (voice.refused) return { problem: voice.refused };
  const server = await transcriptionServer();
  if (!server) return { problem: 'voice notes are not heard here yet (the owner sets a speech server in Settings › Voice)' };
  try {
    return { text: (await transcribeFor(sessionId, server, { bytes: voice.bytes, filename: voice.name, mimeType: voice.claimedType ?? 'application/octet-stream' })).text };
  } catch (error) {
    return { problem: errorText(error) };
  }
}

/** A message's spoken part: its voice note, or else the first attached file that is audio by its bytes (taken out of `files`). */
export function spokenPart(message: Pick<InboundMessage, 'voice' | 'files'>): { voice: NonNullable<InboundMessage['voice']> | null; files: NonNullable<InboundMessage['files']> } {
  const files = message.files ?? [];
  if (message.voice) return { voice: message.voice, files };
  const index = files.findIndex((file) => !file.refused && sniffAudio(file.bytes) !== null);
  if (index < 0) return { voice: null, files };
  const file = files[index]!;
  return { voice: { name: file.name, claimedType: sniffAudio(file.bytes), bytes: file.bytes }, files: files.filter((_, at) => at !== index) };
}
