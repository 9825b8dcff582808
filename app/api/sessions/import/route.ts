import { ApiError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { importBodyLimit, importSession, ImportRefusedError, sessionImportSchema } from '@/lib/http/session-import';
import { sessionJson } from '@/lib/http/session-json';

export const dynamic = 'force-dynamic';

/** The JSON of GET /api/sessions/:id/export becomes a new session (new id, paused). */
export const POST = handle(async (request) => {
  const file = await readJsonBody(request, sessionImportSchema, importBodyLimit());
  try {
    const { session, notes } = await importSession(file);
    return Response.json({ session: sessionJson(session), notes }, { status: 201 });
  } catch (error) {
    if (error instanceof ImportRefusedError) throw new ApiError('validation_failed', error.message);
    throw error;
  }
});
