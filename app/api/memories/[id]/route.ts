import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { findMemory, forgetMemory, memoryHistory, memoryJson, updateMemory } from '@/lib/memory/memory-store';
import { peopleOfSessions } from '@/lib/store/people-repository';
import { wordsHidden } from '@/lib/http/web-visitor';
import type { MemoryRecord } from '@/lib/memory/memory-store';
import { memoryParamsSchema, updateMemoryBodySchema } from '../schema';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ id: string }> };

async function memoryId(context: Context): Promise<number> {
  return parseParams(await context.params, memoryParamsSchema).id;
}

/** A memory remembered from a conversation whose words the visitor does not read answers as one that does not exist (ids are sequential). */
async function readable(request: Request, memory: MemoryRecord | null): Promise<boolean> {
  return memory !== null && (memory.shared || !memory.sessionId || !(await wordsHidden(request, memory.sessionId)));
}

/** One memory with the facts it replaced, oldest first, and the people of the conversation it came from (whose it is). */
export const GET = handle(async (request, context: Context) => {
  const id = await memoryId(context);
  const memory = await findMemory(id);
  if (!memory || !(await readable(request, memory))) throw new ApiError('not_found', `Memory ${id} does not exist`);
  const people = memory.sessionId ? ((await peopleOfSessions([memory.sessionId])).get(memory.sessionId) ?? []) : [];
  return Response.json({ memory: memoryJson(memory), history: (await memoryHistory(id)).map(memoryJson), people });
});

export const PATCH = handle(async (request, context: Context) => {
  const id = await memoryId(context);
  const body = await readJsonBody(request, updateMemoryBodySchema);
  if (!(await readable(request, await findMemory(id)))) throw new ApiError('not_found', `Memory ${id} does not exist`);
  const memory = await updateMemory(id, body);
  if (!memory) throw new ApiError('not_found', `Memory ${id} does not exist`);
  return Response.json({ memory: memoryJson(memory) });
});

/** Forgets it for good: the row, its index entry and the facts it replaced, with no bytes left behind. */
export const DELETE = handle(async (_request, context: Context) => {
  const id = await memoryId(context);
  if (!(await forgetMemory(id))) throw new ApiError('not_found', `Memory ${id} does not exist`);
  return Response.json({ forgotten: id });
});
