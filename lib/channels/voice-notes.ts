// A voice note from a chat, heard (issue 76 §2): transcribed on the speech server Settings › Voice
// names; what goes wrong — no server, a recording not fetched, a refusal — comes back as words for
// the person, and the recording is kept all the same (channel-inbound.ts).
import { errorText } from '@/lib/errors/error-text';
import { transcribe } from '@/lib/voice/transcribe';
import { transcriptionServer } from '@/lib/voice/voice-settings';
import type { InboundMessage } from './channel-types';

export type Heard = { text: string } | { problem: string };

export async function hearVoiceNote(voice: NonNullable<InboundMessage['voice']>): Promise<Heard> {
  if (voice.refused) return { problem: voice.refused };
  const server = await transcriptionServer();
  if (!server) return { problem: 'voice notes are not heard here yet (the owner sets a speech server in Settings › Voice)' };
  try {
    return { text: (await transcribe(server, { bytes: voice.bytes, filename: voice.name, mimeType: voice.claimedType ?? 'application/octet-stream' })).text };
  } catch (error) {
    return { problem: errorText(error) };
  }
}
