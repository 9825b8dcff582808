// Voice notes answered by voice (issue 76 §4): per chat and off until the person sends `/voice on`,
// a voice note's answer comes as a voice note too (Ogg/Opus, said in the voice Settings › Voice
// names, counted on the conversation's allowances) — after the text, which always goes. A voice
// that cannot be made (none set, the server failing) leaves the text alone and is logged.
import { updateBinding, type BindingRecord, type ChannelKind } from '@/lib/store/channels-repository';
import { errorText } from '@/lib/errors/error-text';
import { speakFor } from '@/lib/voice/speech-meter';
import type { Spoken } from '@/lib/voice/speak';
import { spokenText } from '@/lib/voice/spoken-text';
import { speechVoice } from '@/lib/voice/voice-settings';

/** The chats whose adapter sends a voice note. */
const SENDS_VOICE: ReadonlySet<ChannelKind> = new Set(['telegram', 'whatsapp']);

/** `/voice`, `/voice on`, `/voice off` from a person's chat → what to tell them. */
export async function voiceCommand(kind: ChannelKind, binding: BindingRecord, argument: string): Promise<string> {
  if (!SENDS_VOICE.has(kind)) return 'Voice replies are sent on Telegram and WhatsApp; here the answers come as text.';
  const wanted = argument.toLowerCase();
  if (wanted !== 'on' && wanted !== 'off') return `Voice replies here are ${binding.voiceReplies ? 'on' : 'off'}. Send /voice on to hear the answer to a voice note as a voice note too, /voice off to stop.`;
  await updateBinding(binding.id, { voiceReplies: wanted === 'on' });
  if (wanted === 'off') return 'Voice replies off: answers come as text only.';
  const voice = await speechVoice();
  return voice ? 'Voice replies on: a voice note you send is answered with a voice note too, after the text.' : 'Voice replies on — but no voice is set yet (the owner chooses one in Settings › Voice): until then answers come as text.';
}

/** The answer said as a voice note (Ogg/Opus), or null when it cannot be (and why is logged). */
export async function voiceNoteFor(sessionId: string, text: string): Promise<Spoken | null> {
  const voice = await speechVoice();
  if (!voice) return null;
  const words = spokenText(text);
  if (!words) return null;
  try {
    return await speakFor(sessionId, voice, words, 'opus');
  } catch (error) {
    console.warn('[channels] a voice reply was not made (the text was sent):', errorText(error));
    return null;
  }
}
