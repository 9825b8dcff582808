// A second process racing for the per-persona schedule cap (issue 41 §6): it creates `count`
// schedules at once in each session given, on the store of AGENTCSD_DATABASE_URL, and prints how
// many it made. Run by test/api/trigger-routes.test.ts beside its own requests.
import { closeDb } from '@/lib/store/db';
import { createSchedule, createScheduleSchema } from '@/lib/triggers/schedule-service';

const [count, ...sessionIds] = process.argv.slice(2);
const body = createScheduleSchema.parse({ kind: 'cron', expression: '0 9 * * *', action: { kind: 'message', text: 'from the other process' } });
const results = await Promise.allSettled(
  Array.from({ length: Number(count) }, (_, index) => createSchedule({ sessionId: sessionIds[index % sessionIds.length]!, body, createdBy: 'user', now: new Date() })),
);
const refused = results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason?.message));
if (refused.some((message) => !message.includes('active schedules'))) console.error(refused.find((message) => !message.includes('active schedules')));
process.stdout.write(JSON.stringify({ made: results.filter((result) => result.status === 'fulfilled').length }));
await closeDb();
