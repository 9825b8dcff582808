import { z } from 'zod';
import { CREW_FIRST_TASK, CREW_LEAD, installCrew } from '@/lib/crew/crew';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { sessionJson } from '@/lib/http/session-json';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { taskJson } from '@/lib/store/tasks-repository';
import { submitTaskSchema } from '@/lib/store/task-types';

export const dynamic = 'force-dynamic';

const tryCrewSchema = z.strictObject({ goal: z.string().trim().min(1).max(4_000).optional() });

/** "Try the crew": installs the crew's personas and graphs where missing, then a session of the lead with a first task. */
export const POST = handle(async (request) => {
  const body = await readJsonBody(request, tryCrewSchema);
  const installed = await installCrew();
  const orchestrator = getOrchestrator();
  const session = await orchestrator.createSession({ persona: CREW_LEAD, name: 'The crew' });
  const task = await orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ ...CREW_FIRST_TASK, ...(body.goal && { goal: body.goal }) }));
  return Response.json({ session: sessionJson(session), task: taskJson(task), installed }, { status: 201 });
});
