// A session paused by a shutdown is not a session the user paused (issue 73 §2; seed 000 §10.4:
// closing pauses, reopening resumes). A lone process's stop pauses its running sessions and notes
// which; the next start makes those active again — a task mid-run goes on without anyone pressing
// Resume — while a session the user paused stays paused. The note is a setting of the store, so it
// survives the restart and an upgrade in between.
import { z } from 'zod';
import { readJsonSetting, writeJsonSetting } from '@/lib/store/settings-repository';
import { findSession } from '@/lib/store/sessions-repository';

const KEY = 'shutdown_paused';
const noteSchema = z.object({ sessions: z.array(z.string().uuid()).max(100_000) }).strict();

/** Notes the sessions this stop is pausing (beside any a stop before it noted and no start took); returns them. */
export async function noteShutdownPause(sessionIds: readonly string[]): Promise<readonly string[]> {
  const before = await readNote();
  await writeJsonSetting(KEY, { sessions: [...new Set([...before, ...sessionIds])] });
  return sessionIds;
}

/** At start: each session a shutdown paused that is still paused is resumed; the note is forgotten. */
export async function resumeAfterShutdown(resume: (sessionId: string) => Promise<unknown>): Promise<void> {
  const noted = await readNote();
  for (const id of noted) if ((await findSession({ id }))?.status === 'paused') await resume(id);
  if (noted.length > 0) await forgetShutdownPause();
}

async function readNote(): Promise<string[]> {
  return (await readJsonSetting(KEY, noteSchema, 'the sessions a shutdown paused', { sessions: [] })).sessions;
}

/** Forgets the note: the next start resumes nothing (a test harness whose every test starts afresh over one folder). */
export async function forgetShutdownPause(): Promise<void> {
  await writeJsonSetting(KEY, { sessions: [] });
}
