// Whose a memory is, in words (issue 58 §5): a card that would forget or change one names it, so
// the person deciding sees whose memory goes — "Alice's", "the owner's", "shared with everyone".
import { peopleOfSessions } from '@/lib/store/people-repository';
import { findMemory } from './memory-store';

/** "memory #3, Alice's: “PIN is 1234”", or null when there is no such memory. */
export async function memoryCardLine(id: number): Promise<string | null> {
  const memory = await findMemory(id);
  if (!memory) return null;
  const people = memory.sessionId ? ((await peopleOfSessions([memory.sessionId])).get(memory.sessionId) ?? []) : [];
  const names = people.map((person) => (person.id === 'owner' ? 'the owner' : person.name));
  const whose = memory.shared || names.length === 0 ? 'shared with everyone' : `${names.join(' and ')}'s`;
  const text = memory.content.length > 200 ? `${memory.content.slice(0, 200)}…` : memory.content;
  return `memory #${id}, ${whose}: “${text}”`;
}
