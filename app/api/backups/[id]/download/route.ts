// A backup as a download: only a file this app named, in the schedule's folder (never a path).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { backupService } from '@/lib/backup/backup-service';
import { ApiError } from '@/lib/http/api-error';
import { handle, parseParams } from '@/lib/http/route-helpers';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({ id: z.string().min(1).max(100) });

export const GET = handle(async (_request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, paramsSchema);
  const file = await backupService().fileOf(id);
  if (!file) throw new ApiError('not_found', `There is no backup ${id}`);
  const size = fs.statSync(file).size;
  return new Response(Readable.toWeb(fs.createReadStream(file)) as ReadableStream, {
    headers: { 'content-type': 'application/gzip', 'content-length': String(size), 'content-disposition': `attachment; filename="${id}.tar.gz"`, 'cache-control': 'no-store' },
  });
});
