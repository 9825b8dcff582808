// Issue 63 §3: the daily backup runs once a day from its hour (a slot missed while the app was
// down runs once when it is back that day), keeps the last N, never serves a path for an id, and
// a failed one is told to the owner.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackupService, listFolder } from '@/lib/backup/backup-service';
import { putScheduleSchema, readSchedule, schedulePassphrase, writeSchedule } from '@/lib/backup/backup-schedule';
import { closeDb, getDb } from '@/lib/store/db';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { iris: '# Iris\n' } });
afterAll(() => closeDb());

async function finished(service: BackupService) {
  await expect.poll(() => service.job()?.status, { timeout: 30_000 }).not.toBe('running');
  return service.job()!;
}

describe('the daily backup', () => {
  it('runs once a day from its hour, keeps the last N and seals with the saved passphrase', async () => {
    await getDb();
    const folder = path.join(dirs.root, 'backups');
    await writeSchedule(putScheduleSchema.parse({ enabled: true, hour: 3, time_zone: 'Europe/Madrid', keep: 2, folder, passphrase: 'a passphrase long enough' }));
    expect(schedulePassphrase(await readSchedule())).toBe('a passphrase long enough');
    expect(JSON.stringify((await (await getDb()).setting.findUniqueOrThrow({ where: { key: 'backups' } })).value)).not.toContain('long enough');
    const told: string[] = [];
    const service = new BackupService();
    service.start({ tellOwner: (text) => told.push(text), everyMs: 3_600_000 });
    service.stopSchedule();

    // 01:30 in Madrid: before the hour.
    expect(await service.runIfDue(new Date('2026-11-29T00:30:00Z'))).toBeNull();
    // 05:00: the slot was missed (the app was down at 03:00): it runs now, once.
    const first = await service.runIfDue(new Date('2026-11-29T04:00:00Z'));
    expect(first).toMatchObject({ trigger: 'scheduled', secrets: 'sealed' });
    expect(await finished(service)).toMatchObject({ status: 'done' });
    expect(await service.runIfDue(new Date('2026-11-29T05:00:00Z'))).toBeNull();
    for (const day of ['2026-11-30', '2026-12-01']) {
      expect(await service.runIfDue(new Date(`${day}T02:10:00Z`))).not.toBeNull();
      expect(await finished(service)).toMatchObject({ status: 'done' });
    }
    const kept = listFolder(folder);
    expect(kept.map((backup) => backup.id)).toHaveLength(2);
    expect(kept[0]!.id > kept[1]!.id).toBe(true);
    expect(kept.map((backup) => backup.id)).not.toContain(first!.id);
    expect(await service.fileOf(kept[0]!.id)).toBe(path.join(folder, `${kept[0]!.id}.tar.gz`));
    expect(await service.fileOf('../data/secret')).toBeNull();
    expect(told).toEqual([]);
  });

  it('"keep the last N" removes only scheduled archives: those made with Back up now stay (issue 73 §5)', async () => {
    await getDb();
    const folder = path.join(dirs.root, 'mixed-backups');
    await writeSchedule(putScheduleSchema.parse({ enabled: true, hour: 3, time_zone: 'UTC', keep: 1, folder }));
    const service = new BackupService();
    const manual: string[] = [];
    for (const at of ['2026-11-28T10:00:00Z', '2026-11-28T11:00:00Z']) {
      manual.push((await service.begin('manual', new Date(at))).id);
      expect(await finished(service)).toMatchObject({ status: 'done' });
    }
    for (const day of ['2026-11-29', '2026-11-30']) {
      expect(await service.runIfDue(new Date(`${day}T04:00:00Z`))).not.toBeNull();
      expect(await finished(service)).toMatchObject({ status: 'done' });
    }
    const listed = listFolder(folder);
    expect(listed.filter((backup) => !backup.scheduled).map((backup) => backup.id).sort()).toEqual(manual.sort());
    expect(listed.filter((backup) => backup.scheduled)).toHaveLength(1);
    expect(listed.find((backup) => backup.scheduled)!.id).toMatch(/^agentcsd-20261130T040000Z-[0-9a-f]{8}-daily$/);
  });

  it('tells the owner when a backup fails, and keeps the reason shown', async () => {
    const blocked = path.join(dirs.root, 'not-a-folder');
    fs.writeFileSync(blocked, 'a file where the folder should be');
    await writeSchedule(putScheduleSchema.parse({ enabled: true, hour: 0, keep: 3, folder: blocked }));
    const told: string[] = [];
    const service = new BackupService();
    service.start({ tellOwner: (text) => told.push(text), everyMs: 3_600_000 });
    service.stopSchedule();
    await service.begin('manual');
    expect(await finished(service)).toMatchObject({ status: 'failed', error: expect.stringContaining('not-a-folder') });
    expect(told).toEqual([expect.stringMatching(/^Backup failed: /)]);
  });

  it('refuses a weak passphrase and an empty folder', () => {
    expect(putScheduleSchema.safeParse({ enabled: true, hour: 3, keep: 7, folder: '/x', passphrase: 'short' }).success).toBe(false);
    expect(putScheduleSchema.safeParse({ enabled: true, hour: 3, keep: 7, folder: '  ' }).success).toBe(false);
    expect(putScheduleSchema.safeParse({ enabled: true, hour: 24, keep: 7, folder: '/x' }).success).toBe(false);
  });
});
