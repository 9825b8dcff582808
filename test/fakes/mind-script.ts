// A scripted "mind" for the fake model servers: it answers each layer in its protocol, from what
// the prompt says, so end-to-end runs and benchmarks see a believable, deterministic agent.
//   Internal Dialog  → <ID_loud>You said: …</ID_loud><ID_quiet>…</ID_quiet> (or a spontaneous line)
//   Subconscious     → <S_loud> <S_quiet> <M_AND_C> <trigger>; a user message containing
//                      [[speak]] makes it trigger once (until the agent has spoken on its own).
import { unescapeTagContent } from '@/lib/orchestrator/tags/escape';
import type { FakeReply, FakeRequest } from './fake-server-core';

export const spontaneousMarker = '(on my own)';

function tagContent(text: string, tag: string): string | null {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text);
  return match ? unescapeTagContent(match[1]!) : null;
}

export function mindScript(request: FakeRequest): FakeReply {
  const prompt = request.lastUserText;
  if (request.system.includes('You are the Subconscious')) {
    const user = tagContent(prompt, 'ED_user') ?? '';
    const agent = tagContent(prompt, 'ED_agent') ?? '';
    const history = tagContent(prompt, 'S_quiet_history') ?? '';
    const cycle = history ? history.split('\n---\n').length + 1 : 1;
    const trigger = user.includes('[[speak]]') && !agent.startsWith(spontaneousMarker);
    const mood = /sad|tired/i.test(user) ? 'gentle' : user ? 'curious' : 'calm';
    return {
      text:
        `<S_loud>${user ? `They said "${user.slice(0, 40)}". Answer warmly.` : ''}</S_loud>` +
        `<S_quiet>Cycle ${cycle}: mulling over ${user ? 'what they said' : 'the silence'}.</S_quiet>` +
        `<M_AND_C><mood>${mood}</mood><criteria>Keep it short; ask one question.</criteria></M_AND_C>` +
        `<trigger>${trigger}</trigger>`,
    };
  }
  const user = tagContent(prompt, 'ED_user');
  if (user === null) {
    return { text: `<ID_loud>${spontaneousMarker} I kept thinking about what you said.</ID_loud><ID_quiet>I chose to speak first.</ID_quiet>` };
  }
  return { text: `<ID_loud>You said: ${user}</ID_loud><ID_quiet>Private note: they said ${user.length} characters.</ID_quiet>` };
}
