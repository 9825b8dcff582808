// One short-term memory for a task and the tasks it delegated (issue 34, seed 001: "all agents of
// a task share one short-term memory"). `note` keeps a line for the task's team — short-term, tied
// to the task, so it becomes the persona's long-term memory when the task completes — and every
// step's brief lists the notes of the whole tree, from the root down, whoever wrote them: the
// reviewer reads what the lead noted. Notes are the agents' own words, shown as data; one written
// after reading untrusted content says so (ARCHITECTURE §20).
import { z } from 'zod';
import { appendMemory } from '@/lib/memory/memory-store';
import { getDb } from '@/lib/store/db';
import { findSession } from '@/lib/store/sessions-repository';
import { taskTree } from '@/lib/store/tasks-repository';
import { builtinTool, errorOutcome, type Tool } from '@/lib/tools/tool-types';

/** A team's notes live as long as a task may run (the longest time limit is a week). */
const NOTE_TTL_MS = 7 * 24 * 3600_000;
/** The most notes a brief lists (the newest), and the characters they take at most. */
const MAX_NOTES = 30;
const MAX_CHARS = 4_000;

const noteArgs = z.strictObject({ note: z.string().min(3).max(1_000).describe('One fact, decision or finding, in a sentence or two') });

/** `note`, bound to one task: its line joins the notes every agent of the task's tree reads. */
export function noteTool(task: { id: string; sessionId: string }): Tool {
  return builtinTool({
    name: 'note',
    traits: ['writes_memory'],
    description: 'Keep a note for this task: a fact, decision or finding the agents working on it (you, the specialists you delegate to, the one who delegated to you) should know. Every step of every one of them lists the notes.',
    args: noteArgs,
    describeCall: (args) => args.note.slice(0, 200),
    run: async (args) => {
      const persona = (await findSession({ id: task.sessionId }))?.personaName;
      if (!persona) return errorOutcome('This session no longer exists');
      const { memory, created } = await appendMemory({ personaName: persona, content: args.note, scope: 'short', ttlMs: NOTE_TTL_MS, importance: 0.6, sessionId: task.sessionId, taskId: task.id });
      return { isError: false, content: created ? `Noted (#${memory.id}); the team sees it from its next step on.` : `Already noted as #${memory.id}.` };
    },
  }) as Tool;
}

/**
 * The notes of the task's tree, oldest first, as the brief shows them (`[persona] text`), and the
 * untrusted source one of them was written after, if any: reading it makes the reader's session
 * hold untrusted content too (ARCHITECTURE §20).
 */
export async function sharedNotes(taskId: string): Promise<{ lines: string[]; untrusted: string | null }> {
  const tree = await taskTree(taskId);
  if (tree.length === 0) return { lines: [], untrusted: null };
  const rows = await (await getDb()).memory.findMany({
    where: { taskId: { in: tree }, scope: 'short', validTo: null },
    orderBy: { id: 'desc' },
    take: MAX_NOTES,
    select: { personaName: true, content: true, untrustedSource: true },
  });
  const lines: string[] = [];
  let untrusted: string | null = null;
  let used = 0;
  for (const row of rows) {
    const line = `[${row.personaName}] ${row.content}${row.untrustedSource ? ` (written after reading untrusted content: ${row.untrustedSource.slice(0, 120)})` : ''}`;
    if (used + line.length > MAX_CHARS) break;
    used += line.length;
    lines.push(line);
    untrusted ??= row.untrustedSource ? `a note of the ${row.personaName} agent written after reading ${row.untrustedSource}` : null;
  }
  return { lines: lines.reverse(), untrusted };
}
