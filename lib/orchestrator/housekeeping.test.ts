// The hourly chores run (issue 72 §3: expireMemories was called only by tests, expired sign-ins were
// never dropped): a real orchestrator on a simulated clock and the real store — at start, then an
// hour later — removes what expired and keeps what did not.
import { afterEach, describe, expect, it } from 'vitest';
import { appendMemory, findMemory } from '@/lib/memory/memory-store';
import { getDb } from '@/lib/store/db';
import { OWNER_ID } from '@/lib/store/people-repository';
import { createWebSession } from '@/lib/store/web-auth-repository';
import { FakeClock, settle } from '@/test/support/fake-clock';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { HOUSEKEEPING_EVERY_MS } from './housekeeping';
import { Orchestrator } from './orchestrator';

useTempAppDirs();
const running: Orchestrator[] = [];
afterEach(async () => {
  for (const orchestrator of running.splice(0)) await orchestrator.stop();
});

describe('housekeeping', () => {
  it('drops expired memories and sign-ins at start and every hour after; what has time left stays', async () => {
    const clock = new FakeClock(Date.parse('2026-12-01T10:00:00Z'));
    const now = () => new Date(clock.now());
    const gone = (await appendMemory({ personaName: 'iris', content: 'a passing thought', scope: 'short', ttlMs: 60_000, now: new Date(clock.now() - 120_000) })).memory;
    const later = (await appendMemory({ personaName: 'iris', content: 'good for half an hour more', scope: 'short', ttlMs: 90 * 60_000, now: now() })).memory;
    const kept = (await appendMemory({ personaName: 'iris', content: 'a lasting fact', kind: 'fact', now: now() })).memory;
    await createWebSession({ secret: 'expired-secret', personId: OWNER_ID, expiresAt: new Date(clock.now() - 1_000), userAgent: 't', passkeyId: null, now: new Date(clock.now() - 86_400_000) });
    await createWebSession({ secret: 'live-secret', personId: OWNER_ID, expiresAt: new Date(clock.now() + 86_400_000), userAgent: 't', passkeyId: null, now: now() });

    const orchestrator = new Orchestrator({ clock });
    running.push(orchestrator);
    await orchestrator.start();
    await expect.poll(async () => findMemory(gone.id)).toBeNull();
    expect(await findMemory(later.id)).not.toBeNull();
    expect(await (await getDb()).webSession.count()).toBe(1);

    await clock.advance(HOUSEKEEPING_EVERY_MS); // an hour on: 30 minutes left, it stays
    await settle(3);
    expect(await findMemory(later.id)).not.toBeNull();
    await clock.advance(HOUSEKEEPING_EVERY_MS); // two hours on: past its time
    await settle(3);
    await expect.poll(async () => findMemory(later.id)).toBeNull();
    expect(await findMemory(kept.id)).not.toBeNull();
  });
});
