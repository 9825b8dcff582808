// The app's backups while it runs (issue 63 §3): one at a time, in the background, with its
// progress; the daily one at the schedule's hour (a slot missed while the app was down runs once
// when it is back that day); the oldest scheduled ones beyond "keep" removed; a failure told to
// the owner's chats. Listed from the folder itself, so a backup taken with `npm run backup` into
// the same folder is listed too. One per process, in the process state (routes and server.ts share it).
import fs from 'node:fs';
import path from 'node:path';
import { BackupError } from './backup-manifest';
import { localHour, noteScheduledDay, readSchedule, schedulePassphrase } from './backup-schedule';
import { backupFileName } from './backup-manifest';
import { errorText } from '@/lib/errors/error-text';
import { processSlot } from '@/lib/process/process-state';

export interface BackupJob {
  id: string;
  file: string;
  status: 'running' | 'done' | 'failed';
  trigger: 'manual' | 'scheduled';
  progress: number;
  step: string;
  secrets: 'sealed' | 'left-out';
  size: number | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface BackupListing {
  id: string;
  file: string;
  size: number;
  created_at: string;
  /** Made by the daily schedule (only those are removed past "keep"); else by Back up now, or the command. */
  scheduled: boolean;
}

/** A backup's id is its file name without `.tar.gz`: only names this app makes are ever served. */
const ID = /^agentcsd-\d{8}T\d{6}Z-[0-9a-f]{8}(-daily)?$/;

export class BackupService {
  private current: BackupJob | null = null;
  private last: BackupJob | null = null;
  private timer: NodeJS.Timeout | null = null;
  private tellOwner: (text: string) => void = () => undefined;

  /** Starts the daily check (once a minute). */
  start(options: { tellOwner: (text: string) => void; now?: () => Date; everyMs?: number }): void {
    this.tellOwner = options.tellOwner;
    const now = options.now ?? (() => new Date());
    this.stopSchedule();
    this.timer = setInterval(() => void this.runIfDue(now()).catch((error: unknown) => console.error('[backups] the schedule could not be read', error)), options.everyMs ?? 60_000);
    this.timer.unref();
  }

  stopSchedule(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The scheduled backup, if its hour has come today and it has not run yet. */
  async runIfDue(now: Date): Promise<BackupJob | null> {
    const schedule = await readSchedule();
    if (!schedule.enabled || this.current) return null;
    const { day, hour } = localHour(now, schedule.time_zone);
    if (hour < schedule.hour || schedule.last_day === day) return null;
    await noteScheduledDay(day);
    return this.begin('scheduled', now);
  }

  /** A backup now, into the schedule's folder; refused while one runs. */
  async begin(trigger: BackupJob['trigger'], now = new Date()): Promise<BackupJob> {
    if (this.current) throw new BackupError('failed', 'A backup is already running: wait for it to finish.');
    const schedule = await readSchedule();
    const passphrase = schedulePassphrase(schedule);
    const name = backupFileName(now, trigger);
    const job: BackupJob = {
      id: name.replace(/\.tar\.gz$/, ''),
      file: path.join(schedule.folder, name),
      status: 'running',
      trigger,
      progress: 0,
      step: 'starting',
      secrets: passphrase !== undefined ? 'sealed' : 'left-out',
      size: null,
      error: null,
      started_at: now.toISOString(),
      finished_at: null,
    };
    this.current = job;
    // The archive's libraries (tar, pg) load with the first backup, not with the server.
    void import('./take-backup')
      .then(({ takeBackup }) => takeBackup({ to: job.file, passphrase, onProgress: (done, step) => Object.assign(job, { progress: done, step }) }))
      .then((result) => {
        Object.assign(job, { status: 'done', size: result.size, progress: 1, step: 'done' });
        if (trigger === 'scheduled') this.prune(schedule.folder, schedule.keep);
      })
      .catch((error: unknown) => {
        Object.assign(job, { status: 'failed', error: errorText(error) });
        console.error('[backups] failed:', errorText(error));
        this.tellOwner(`Backup failed: ${errorText(error)}. The last good one is still in ${schedule.folder}.`);
      })
      .finally(() => {
        job.finished_at = new Date().toISOString();
        this.last = job;
        this.current = null;
      });
    return job;
  }

  /** The running backup, else the last one this process ran (its outcome: a failure stays shown). */
  job(): BackupJob | null {
    return this.current ?? this.last;
  }

  async list(): Promise<BackupListing[]> {
    const { folder } = await readSchedule();
    return listFolder(folder);
  }

  /** The file of a listed backup, or null (an id this app never makes is never a path). */
  async fileOf(id: string): Promise<string | null> {
    if (!ID.test(id)) return null;
    const file = path.join((await readSchedule()).folder, `${id}.tar.gz`);
    return fs.existsSync(file) && this.current?.id !== id ? file : null;
  }

  /** The newest `keep` scheduled backups of the folder stay; older scheduled ones are removed — never one made by hand. */
  private prune(folder: string, keep: number): void {
    for (const old of listFolder(folder).filter((backup) => backup.scheduled).slice(keep)) fs.rmSync(old.file, { force: true });
  }
}

/** The folder's backups, newest first (names carry the time: they sort). */
export function listFolder(folder: string): BackupListing[] {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.tar.gz') && ID.test(name.replace(/\.tar\.gz$/, '')))
    .sort()
    .reverse()
    .map((name) => {
      const file = path.join(folder, name);
      const stat = fs.statSync(file);
      const id = name.replace(/\.tar\.gz$/, '');
      return { id, file, size: stat.size, created_at: stat.mtime.toISOString(), scheduled: id.endsWith('-daily') };
    });
}

const backupsSlot = processSlot<BackupService | undefined>('backup.backups', () => undefined);

export function backupService(): BackupService {
  backupsSlot.value ??= new BackupService();
  return backupsSlot.value;
}
