// Settings › Backups (issue 63 §3): daily at an hour of a time zone, keep the last N, in a folder
// the owner picks; a passphrase kept sealed (with the key the data folder holds) seals the
// archives' secrets, or none and they are left out. One JSON row under `backups`.
import path from 'node:path';
import { z } from 'zod';
import { timeZoneSchema } from '@/lib/config/time-zone';
import { open, seal } from '@/lib/store/secret-box';
import { readJsonSetting, writeJsonSetting } from '@/lib/store/settings-repository';
import { checkPassphrase } from './backup-key';
import { errorText } from '@/lib/errors/error-text';

export const BACKUP_SETTING = 'backups';

const storedSchema = z.object({
  enabled: z.boolean(),
  hour: z.number().int().min(0).max(23),
  time_zone: timeZoneSchema,
  keep: z.number().int().min(1).max(365),
  folder: z.string().min(1).max(1000),
  passphrase_sealed: z.string().nullable(),
  /** The day (in the schedule's zone) the last scheduled backup ran, so a day gets one. */
  last_day: z.string().nullable(),
});
export type BackupSchedule = z.infer<typeof storedSchema>;

/** What the page sends: the passphrase is write-only ('' removes it, absent keeps it). */
export const putScheduleSchema = z
  .object({
    enabled: z.boolean(),
    hour: z.number().int().min(0).max(23),
    time_zone: timeZoneSchema.optional(),
    keep: z.number().int().min(1, 'keep at least one').max(365),
    folder: z.string().trim().min(1, 'folder must not be empty').max(1000).refine((folder) => !folder.includes('\u0000'), 'folder must not hold NUL'),
    passphrase: z.string().max(1000).optional(),
  })
  .strict()
  .superRefine((value, context) => {
    if (value.passphrase) {
      try {
        checkPassphrase(value.passphrase);
      } catch (error) {
        context.addIssue({ code: 'custom', path: ['passphrase'], message: errorText(error) });
      }
    }
  });

export function defaultSchedule(): BackupSchedule {
  return { enabled: false, hour: 3, time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', keep: 7, folder: path.resolve('backups'), passphrase_sealed: null, last_day: null };
}

export function readSchedule(): Promise<BackupSchedule> {
  return readJsonSetting(BACKUP_SETTING, storedSchema, 'Backups', defaultSchedule());
}

export async function writeSchedule(input: z.infer<typeof putScheduleSchema>): Promise<BackupSchedule> {
  const stored = await readSchedule();
  const passphraseSealed = input.passphrase === undefined ? stored.passphrase_sealed : input.passphrase === '' ? null : seal(input.passphrase, BACKUP_SETTING);
  const next: BackupSchedule = { ...stored, enabled: input.enabled, hour: input.hour, time_zone: input.time_zone ?? stored.time_zone, keep: input.keep, folder: path.resolve(input.folder), passphrase_sealed: passphraseSealed };
  await writeJsonSetting(BACKUP_SETTING, next);
  return next;
}

export async function noteScheduledDay(day: string): Promise<void> {
  await writeJsonSetting(BACKUP_SETTING, { ...(await readSchedule()), last_day: day });
}

/** The saved passphrase, or undefined (none saved, or sealed under another key: a restored app without its secrets). */
export function schedulePassphrase(schedule: BackupSchedule): string | undefined {
  return schedule.passphrase_sealed ? (open(schedule.passphrase_sealed, BACKUP_SETTING) ?? undefined) : undefined;
}

/** The schedule as the page sees it (never the passphrase). */
export function publicSchedule(schedule: BackupSchedule) {
  const { passphrase_sealed: sealed, last_day: _day, ...rest } = schedule;
  return { ...rest, passphrase_set: Boolean(sealed && schedulePassphrase(schedule)) };
}

/** The day and hour at `now` in a zone: `YYYY-MM-DD`, 0–23. */
export function localHour(now: Date, timeZone: string): { day: string; hour: number } {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' }).formatToParts(now).map((part) => [part.type, part.value]));
  return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour) };
}
