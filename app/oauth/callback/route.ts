import { z } from 'zod';
import { toApiError } from '@/lib/http/api-error';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';

export const dynamic = 'force-dynamic';

const querySchema = z.object({
  state: z.string().min(1).max(512),
  code: z.string().min(1).max(4_096).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1_000).optional(),
});

const escape = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function page(status: number, message: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in refused · AgentCSD</title></head><body style="font-family:system-ui;max-width:40rem;margin:4rem auto"><h1>Sign-in refused</h1><p data-testid="oauth-refused">${escape(message)}</p><p><a href="/settings/mcp">Back to Settings › MCP servers</a></p></body></html>`;
  return new Response(html, { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}

/**
 * Back to Settings from a page of our own, not with a redirect: the browser arrived here from the
 * authorization server (a cross-site navigation), and a redirect would carry that on — the
 * SameSite=Strict token cookie would be left out of the Settings request too, when the app asks
 * for its token (bound beyond loopback). A navigation this page starts is same-site.
 */
function backTo(location: string, message: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escape(location)}"><title>Back to Settings · AgentCSD</title></head><body style="font-family:system-ui;max-width:40rem;margin:4rem auto"><p data-testid="oauth-back">${escape(message)}</p><p><a href="${escape(location)}">Back to Settings › MCP servers</a></p></body></html>`;
  return new Response(html, { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } });
}

/**
 * Where an authorization server sends the browser back (ARCHITECTURE §17). The state must be one
 * this app started and not used yet — it is what authenticates this request (issue 41 §12: the
 * token cookie does not come along on a cross-site navigation); then the code is exchanged with
 * the kept PKCE verifier and the browser goes back to Settings, which says how it went.
 */
export async function GET(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const query = querySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!query.success) return page(400, 'This address is not a sign-in coming back: it has no state. Start again from Settings › MCP servers.');
  const settings = new URL('/settings/mcp', 'http://app.invalid'); // only its path, query and hash are sent
  try {
    const name = await getOrchestrator().mcp.finishSignIn({
      state: query.data.state,
      code: query.data.code,
      error: query.data.error,
      errorDescription: query.data.error_description,
    });
    settings.searchParams.set('mcp_signed_in', name);
  } catch (error) {
    const failure = toApiError(error);
    if (failure.status === 400) return page(400, failure.message);
    settings.searchParams.set('mcp_error', failure.message);
  }
  settings.hash = 'mcp-servers';
  const signedIn = settings.searchParams.get('mcp_signed_in');
  return backTo(`${settings.pathname}${settings.search}${settings.hash}`, signedIn ? `Signed in to ${signedIn}.` : 'The sign-in did not complete.');
}
