// The sign-in routes with real Requests against a real authorization server (ARCHITECTURE §17):
// POST …/sign-in → consent → GET /oauth/callback → back to Settings with the server connected;
// a callback whose state was never issued is a 400 page that stores nothing; sign-in on a local or
// unknown server is a clear 409/404; a pasted client secret never goes back to a browser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as servers from '@/app/api/mcp-servers/route';
import * as signInRoute from '@/app/api/mcp-servers/[name]/sign-in/route';
import * as signOutRoute from '@/app/api/mcp-servers/[name]/sign-out/route';
import * as callback from '@/app/oauth/callback/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { readMcpAuth } from '@/lib/store/mcp-tokens-repository';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { consentInBrowserless, startOAuthMcpServer, type OAuthMcpServer } from '@/test/support/oauth-mcp-server';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
const base = 'http://localhost:3000';
let server: OAuthMcpServer;

beforeAll(async () => {
  server = await startOAuthMcpServer();
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '', holdAfterChunks: 0 }) });
  const saved = await servers.PUT(
    new Request(`${base}/api/mcp-servers`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        mcpServers: {
          remote: { type: 'http', url: server.mcpUrl },
          pasted: { type: 'http', url: 'http://127.0.0.1:9/mcp', oauth: { client_id: 'made-by-hand', client_secret: 'very-secret-client-value' } },
          local: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
        },
      }),
    }),
    undefined,
  );
  expect(saved.status).toBe(200);
  await getOrchestrator().mcp.settled();
});
afterAll(async () => {
  await stopOrchestrator();
  await server.close();
});

const post = (route: typeof signInRoute.POST, name: string) => route(new Request(`${base}/api/mcp-servers/${name}/x`, { method: 'POST' }), { params: Promise.resolve({ name }) });
const remoteStatus = () => getOrchestrator().mcp.status().find((entry) => entry.name === 'remote')!;

describe('signing in through the routes', () => {
  it('sign-in → consent → callback → Settings, connected; sign-out → needs sign-in', async () => {
    expect(remoteStatus().state).toBe('needs_sign_in');
    const started = await post(signInRoute.POST, 'remote');
    expect(started.status).toBe(200);
    const { authorization_url } = (await started.json()) as { authorization_url: string };
    expect(new URL(authorization_url).searchParams.get('redirect_uri')).toBe(`${base}/oauth/callback`);
    const back = await consentInBrowserless(authorization_url);
    const answer = await callback.GET(new Request(back.href));
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('<meta http-equiv="refresh" content="0;url=/settings/mcp?mcp_signed_in=remote#mcp-servers">');
    expect(remoteStatus()).toMatchObject({ state: 'ready', signed_in: true, tool_count: 1 });

    const out = await post(signOutRoute.POST, 'remote');
    expect(await out.json()).toEqual({ revoked: true, error: null });
    expect(remoteStatus().state).toBe('needs_sign_in');
  });

  it('a callback with a state this app never issued is a 400 page, and nothing is stored', async () => {
    const answer = await callback.GET(new Request(`${base}/oauth/callback?code=stolen-code&state=forged-state`));
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('unknown or has expired');
    expect((await readMcpAuth('remote'))?.tokens ?? null).toBeNull();
    const bare = await callback.GET(new Request(`${base}/oauth/callback?code=x`));
    expect(bare.status).toBe(400);
  });

  it('the authorization server saying access_denied goes back to Settings with the reason', async () => {
    const { authorization_url } = (await (await post(signInRoute.POST, 'remote')).json()) as { authorization_url: string };
    const state = new URL(authorization_url).searchParams.get('state')!;
    const answer = await callback.GET(new Request(`${base}/oauth/callback?error=access_denied&error_description=no+thanks&state=${state}`));
    expect(answer.status).toBe(200);
    const refresh = /content="0;url=([^"]+)"/.exec(await answer.text())![1]!;
    expect(decodeURIComponent(refresh.replace(/&#38;/g, '&').replace(/\+/g, ' '))).toContain('access_denied: no thanks');
  });

  it('sign-in for a local server is a 409, for an unknown one a 404', async () => {
    const local = await post(signInRoute.POST, 'local');
    expect(local.status).toBe(409);
    expect(((await local.json()) as { error: { message: string } }).error.message).toMatch(/only remote servers sign in/);
    const unknown = await post(signInRoute.POST, 'nobody');
    expect(unknown.status).toBe(404);
  });

  it('a pasted client secret is masked, and a PUT sending the mask back keeps it', async () => {
    const body = (await (await servers.GET(new Request(`${base}/api/mcp-servers`), undefined)).json()) as { mcpServers: Record<string, { oauth?: { client_secret?: string } }> };
    expect(JSON.stringify(body)).not.toContain('very-secret-client-value');
    expect(body.mcpServers.pasted!.oauth!.client_secret).toBe('••••alue');
  });
});
