import { ApiError } from '@/lib/http/api-error';
import { handle, parseSearchParams, readJsonBody } from '@/lib/http/route-helpers';
import { appendMemory, findMemory, listMemories, memoryJson, supersedeMemory, updateMemory, type MemoryRecord } from '@/lib/memory/memory-store';
import { peopleOfSessions } from '@/lib/store/people-repository';
import { recall } from '@/lib/memory/recall';
import { visitorOf, type WebVisitor } from '@/lib/http/web-visitor';
import { wordsHiddenFromOwner } from '@/lib/people/web-reach';
import { createMemoryBodySchema, memoriesQuerySchema } from './schema';

export const dynamic = 'force-dynamic';

/**
 * Each memory with the people of the conversation it came from (issue 42: none = the persona's
 * shared memory); with `person`, only those of that person's conversations.
 */
async function withPeople(memories: readonly MemoryRecord[], person: string | undefined, visitor: WebVisitor) {
  const people = await peopleOfSessions(memories.flatMap((memory) => (memory.sessionId ? [memory.sessionId] : [])));
  const of = (memory: MemoryRecord) => (memory.sessionId ? (people.get(memory.sessionId) ?? []) : []);
  // A signed-in person (issue 61 §3): the shared memories and those of their own conversations.
  const theirs = (memory: MemoryRecord) => visitor.owner || memory.shared || memory.sessionId === null || of(memory).some((entry) => entry.id === visitor.person?.id);
  // The owner, with people's words kept their own (issue 61 §6): not what was remembered from their conversations.
  const hidden = visitor.owner ? await wordsHiddenFromOwner(memories.flatMap((memory) => (memory.sessionId && !memory.shared ? [memory.sessionId] : []))) : new Set<string>();
  return memories.filter((memory) => theirs(memory) && !(memory.sessionId && !memory.shared && hidden.has(memory.sessionId)) && (person === undefined || of(memory).some((entry) => entry.id === person))).map((memory) => ({ ...memoryJson(memory), people: of(memory) }));
}

/** A persona's memories (newest and pinned first), or those that match `q` with the agent's recall. */
export const GET = handle(async (request) => {
  const query = parseSearchParams(request, memoriesQuerySchema);
  const visitor = await visitorOf(request);
  if (query.q) {
    if (!query.persona) throw new ApiError('validation_failed', 'Invalid query: q needs persona');
    const hits = (await recall({ personaName: query.persona, query: query.q, k: 50 })).filter((hit) => hit.kind === 'memory');
    const memories = await Promise.all(hits.map((hit) => findMemory(hit.id)));
    return Response.json({ memories: await withPeople(memories.filter((memory) => memory !== null), query.person, visitor) });
  }
  const memories = await listMemories({ personaName: query.persona, scope: query.scope, kind: query.kind, sessionId: query.session_id, includeSuperseded: query.history === '1' });
  return Response.json({ memories: await withPeople(memories, query.person, visitor) });
});

/** Remember something for a persona (the Memory page's "Add"); the same text again is the same memory. */
export const POST = handle(async (request) => {
  const body = await readJsonBody(request, createMemoryBodySchema);
  if (body.supersedes !== undefined) {
    const old = await findMemory(body.supersedes);
    if (!old || old.personaName !== body.persona) throw new ApiError('not_found', `Memory ${body.supersedes} does not exist for ${body.persona}`);
  }
  const { memory, created } = await appendMemory({ personaName: body.persona, content: body.content, kind: body.kind, scope: body.scope, importance: body.importance });
  if (body.supersedes !== undefined && body.supersedes !== memory.id) await supersedeMemory(body.supersedes, memory.id);
  const saved = body.pinned !== undefined ? await updateMemory(memory.id, { pinned: body.pinned }) : memory;
  return Response.json({ memory: memoryJson(saved!), created }, { status: created ? 201 : 200 });
});
