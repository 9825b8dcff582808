// The app's mind in a process of its own (no pages): the real orchestrator on the store and engine
// the environment names, as `server.ts` starts it. Tests that kill a process during a run
// (SIGKILL) spawn it; with CREW_GOAL set it starts the crew's lead on that goal and prints the ids.
import { createEngine } from '@/lib/engine/create-engine';
import { realClock } from '@/lib/clock/clock';
import { readEnv } from '@/lib/config/env';
import { CREW_FIRST_TASK, CREW_LEAD } from '@/lib/crew/crew';
import { startOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { submitTaskSchema } from '@/lib/store/task-types';

const env = readEnv();
await getDb();
const orchestrator = await startOrchestrator({ taskWorkingDelayMs: env.AGENTCSD_TASK_STEP_DELAY_MS, configured: await createEngine(env, realClock) });
const goal = process.env.CREW_GOAL;
if (goal) {
  const session = await orchestrator.createSession({ persona: CREW_LEAD, name: 'The crew' });
  const task = await orchestrator.tasks.submit(session.id, submitTaskSchema.parse({ ...CREW_FIRST_TASK, goal }));
  console.log(`started ${JSON.stringify({ sessionId: session.id, taskId: task.id })}`);
}
console.log('orchestrator process ready');
