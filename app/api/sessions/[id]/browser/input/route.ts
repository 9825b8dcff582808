// The person's clicks and keys while they hold the agent's browser (issue 45 §5): to the page only —
// never to the model, the logs or an event.
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { requireWords } from '@/lib/http/web-visitor';
import { handle, parseParams, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { sessionParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

const inputSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('click'), x: z.number().min(0).max(10_000), y: z.number().min(0).max(10_000) }).strict(),
  z.object({ type: z.literal('text'), text: z.string().min(1).max(2_000) }).strict(),
  z.object({ type: z.literal('key'), key: z.string().min(1).max(40).regex(/^[\w+-]+$/, 'a key name like Enter or Backspace') }).strict(),
  z.object({ type: z.literal('scroll'), dy: z.number().min(-20_000).max(20_000) }).strict(),
]);

export const POST = handle(async (request, context: { params: Promise<{ id: string }> }) => {
  const { id } = parseParams(await context.params, sessionParamsSchema);
  const event = await readJsonBody(request, inputSchema, 8 * 1024);
  await requireWords(request, id);
  const browser = await getOrchestrator().browser.current(id);
  if (!browser) throw new ApiError('conflict', "This session's browser is not open.");
  if (!browser.takenOver) throw new ApiError('conflict', 'Take over the browser first.');
  await browser.input(event);
  return new Response(null, { status: 204 });
});
