// What a chat may show of the mind it talks to while it works (issue 62 §5): the persona, the
// Subconscious's latest mood and criteria in its session, and the prompts the persona suggests —
// for Slack's AI side panel (a thread's status and its suggested prompts). Only the chat's own
// paired person asks, of their own conversation: a stranger gets nothing.
import { findBinding } from '@/lib/store/channels-repository';
import { listMoodAndCriteria } from '@/lib/store/messages-repository';
import { personaExists, readPersona } from '@/lib/personas/persona-files';
import type { ChannelHost, ChatMind } from './channel-types';
import { boundSession } from './channel-people';

const MAX_PROMPTS = 4;

export async function chatMind(host: ChannelHost, channelId: string, sender: string): Promise<ChatMind | null> {
  const binding = await findBinding(channelId, sender);
  if (!binding) return null;
  const session = await boundSession(host, binding);
  const persona = session?.personaName ?? binding.persona;
  if (!persona) return null;
  const [latest] = session ? await listMoodAndCriteria({ sessionId: session.id, limit: 1 }) : [];
  return { persona, mood: latest?.mood ?? null, criteria: latest?.criteria ?? null, prompts: suggestedPrompts(persona) };
}

/**
 * The persona's own suggestions: the bullets under a `## Suggested prompts` heading of its file
 * (`- Title: the message`, or just the message), at most four; otherwise three plain ones.
 */
export function suggestedPrompts(persona: string): ChatMind['prompts'] {
  const content = personaExists(persona) ? readPersona(persona).content : '';
  const section = /^#{2,3}\s+Suggested prompts\s*$([\s\S]*?)(?=^#{1,3}\s|(?![\s\S]))/im.exec(content)?.[1] ?? '';
  const prompts = [...section.matchAll(/^\s*[-*]\s+(.+)$/gm)].slice(0, MAX_PROMPTS).map((match) => {
    const line = match[1]!.trim();
    const split = /^([^:]{1,60}):\s+(.+)$/.exec(line);
    return split ? { title: split[1]!.trim(), message: split[2]!.trim().slice(0, 1_000) } : { title: line.slice(0, 60), message: line.slice(0, 1_000) };
  });
  if (prompts.length > 0) return prompts;
  return [
    { title: 'What can you do?', message: 'What can you help me with?' },
    { title: 'What are you thinking?', message: 'What is on your mind right now?' },
    { title: 'Plan my day', message: 'Help me plan the rest of my day.' },
  ];
}
