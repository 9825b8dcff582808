// Settings › Backups' schedule: daily at an hour, keep the last N, in a folder; the passphrase is
// write-only (sealed at rest; '' removes it, absent keeps it).
import fs from 'node:fs';
import { publicSchedule, putScheduleSchema, writeSchedule } from '@/lib/backup/backup-schedule';
import { ApiError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { errorText } from '@/lib/errors/error-text';

export const dynamic = 'force-dynamic';

export const PUT = handle(async (request) => {
  const body = await readJsonBody(request, putScheduleSchema);
  try {
    fs.mkdirSync(body.folder, { recursive: true, mode: 0o700 });
    fs.accessSync(body.folder, fs.constants.W_OK);
  } catch (error) {
    throw new ApiError('unprocessable', `The folder ${body.folder} cannot be written to: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}`);
  }
  return Response.json({ schedule: publicSchedule(await writeSchedule(body)) });
});
