import { ApiError } from '@/lib/http/api-error';
import { requireWords } from '@/lib/http/web-visitor';
import { handle, parseParams, parseSearchParams } from '@/lib/http/route-helpers';
import { sessionExportJson, sessionTranscriptMarkdown } from '@/lib/http/session-export';
import { exportedFiles } from '@/lib/http/session-files-io';
import { readWholeSession } from '@/lib/store/messages-repository';
import { readPersonaSnapshot } from '@/lib/store/session-logs';
import { findSession } from '@/lib/store/sessions-repository';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { listMemories } from '@/lib/memory/memory-store';
import { sessionParamsSchema } from '../schema';
import { exportQuerySchema } from './schema';

export const dynamic = 'force-dynamic';

/** The whole session as a download: `?format=json` (everything, keys removed) or `?format=md`. */
export const GET = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  await requireWords(request, id); // a conversation's words: its people's, and the owner's unless kept their own
  const { format } = parseSearchParams(request, exportQuerySchema);
  const session = await findSession({ id });
  if (!session) throw new ApiError('not_found', `Session ${id} does not exist`);
  const [whole, toolCalls, memories] = await Promise.all([readWholeSession({ sessionId: id }), listToolCalls({ sessionId: id, limit: 100_000 }), listMemories({ sessionId: id, limit: 100_000 })]);
  const base = `agentcsd-${session.name.replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'session'}`;
  if (format === 'md') {
    return new Response(sessionTranscriptMarkdown(session, whole, toolCalls), {
      headers: { 'content-type': 'text/markdown; charset=utf-8', 'content-disposition': `attachment; filename="${encodeURIComponent(base)}.md"` },
    });
  }
  return new Response(JSON.stringify(sessionExportJson(session, whole, readPersonaSnapshot(id), toolCalls, memories, await exportedFiles(id)), null, 2), {
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-disposition': `attachment; filename="${encodeURIComponent(base)}.json"` },
  });
});
