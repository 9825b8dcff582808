// A settings file from another install (GET /api/settings/export there): validated whole before
// anything is applied; what it names is replaced or added, nothing else removed; the answer says
// what was imported, what was skipped, what to type again — and what waits for the owner to
// confirm (rules, trust, the backup folder), applied by posting those parts again with ?confirm=true.
import { z } from 'zod';
import { importSettings, settingsFileSchema } from '@/lib/http/settings-travel';
import { handle, parseSearchParams, readJsonBody } from '@/lib/http/route-helpers';

export const dynamic = 'force-dynamic';

const querySchema = z.object({ confirm: z.enum(['true', 'false']).optional() }).strict();

export const POST = handle(async (request) => {
  const { confirm } = parseSearchParams(request, querySchema);
  const file = await readJsonBody(request, settingsFileSchema, 2 * 1024 * 1024);
  return Response.json({ report: await importSettings(file, new Date(), { confirm: confirm === 'true' }) });
});
