import { handle, parseParams } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { mcpServerParamsSchema } from '../../schema';

export const dynamic = 'force-dynamic';

/**
 * Starts a sign-in to a remote server: `{ authorization_url }` to open in the browser (null when
 * stored credentials were enough). The callback comes back to this same origin.
 */
export const POST = handle(async (request, context: { params: Promise<{ name: string }> }) => {
  const { name } = parseParams(await context.params, mcpServerParamsSchema);
  // The Host the browser used (the guard let only ours through; the app serves plain HTTP): Next's
  // request.url may say localhost where the page is on 127.0.0.1, another origin for cookies.
  const host = request.headers.get('host');
  const redirect = new URL('/oauth/callback', host ? `http://${host}` : new URL(request.url).origin).href;
  const authorizationUrl = await getOrchestrator().mcp.signIn(name, redirect);
  return Response.json({ authorization_url: authorizationUrl });
});
