// A settings file from another install (GET /api/settings/export there): validated whole before
// anything is applied; what it names is replaced or added, nothing else removed; the answer says
// what was imported, what was skipped and what to type again.
import { importSettings, settingsFileSchema } from '@/lib/http/settings-travel';
import { handle, readJsonBody } from '@/lib/http/route-helpers';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request) => {
  const file = await readJsonBody(request, settingsFileSchema, 2 * 1024 * 1024);
  return Response.json({ report: await importSettings(file) });
});
