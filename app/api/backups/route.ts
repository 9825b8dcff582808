// Backups of the whole app (issue 63, ARCHITECTURE §28): GET lists the folder's backups, the
// running (or last) one with its progress and the schedule; POST starts one now (202), into the
// schedule's folder, its secrets sealed with the saved passphrase or left out. Owner only (the
// web table lets nobody else reach /api/backups).
import { backupService } from '@/lib/backup/backup-service';
import { publicSchedule, readSchedule } from '@/lib/backup/backup-schedule';
import { ApiError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { startBackupSchema } from './schema';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const service = backupService();
  return Response.json({ backups: await service.list(), job: service.job(), schedule: publicSchedule(await readSchedule()) });
});

export const POST = handle(async (request) => {
  if (request.headers.get('content-length') !== '0' && request.body) await readJsonBody(request, startBackupSchema);
  const service = backupService();
  if (service.job()?.status === 'running') throw new ApiError('conflict', 'A backup is already running: wait for it to finish.');
  return Response.json({ backup: await service.begin('manual') }, { status: 202 });
});
