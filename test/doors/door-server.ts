// The doors as the app serves them, for the door tests: a loopback HTTP server that puts each
// request through the app's own guard (Host, and the door's exemption from Origin and the page's
// token), then hands it to the route module the path names through the server's own bridge from
// Node to Web Requests (lib/http/web-bridge.ts) — real Requests and Responses, streamed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as sessionsRoute from '@/app/v1/agentcsd/sessions/route';
import * as messagesRoute from '@/app/v1/agentcsd/sessions/[id]/messages/route';
import * as stopRoute from '@/app/v1/agentcsd/sessions/[id]/stop/route';
import * as decisionRoute from '@/app/v1/agentcsd/tool-calls/[id]/decision/route';
import * as completionsRoute from '@/app/v1/chat/completions/route';
import * as responsesRoute from '@/app/v1/responses/route';
import * as responseRoute from '@/app/v1/responses/[id]/route';
import * as modelsRoute from '@/app/v1/models/route';
import * as keysRoute from '@/app/api/keys/route';
import { startOrchestrator } from '@/lib/orchestrator/orchestrator';
import { guardRequest } from '@/lib/security/http-entry';
import { serveWebHandler } from '@/lib/http/web-bridge';
import { readSettings, writeSettings } from '@/lib/store/settings-repository';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { mindScript } from '@/test/fakes/mind-script';

type Handler = (request: Request) => Promise<Response>;
const routes: [string, RegExp, Handler][] = [
  ['GET', /^\/v1\/models$/, modelsRoute.GET],
  ['POST', /^\/v1\/chat\/completions$/, completionsRoute.POST],
  ['POST', /^\/v1\/responses$/, responsesRoute.POST],
  ['GET', /^\/v1\/responses\/[^/]+$/, responseRoute.GET],
  ['DELETE', /^\/v1\/responses\/[^/]+$/, responseRoute.DELETE],
  ['POST', /^\/v1\/agentcsd\/sessions$/, sessionsRoute.POST],
  ['POST', /^\/v1\/agentcsd\/sessions\/[^/]+\/messages$/, messagesRoute.POST],
  ['POST', /^\/v1\/agentcsd\/sessions\/[^/]+\/stop$/, stopRoute.POST],
  ['POST', /^\/v1\/agentcsd\/tool-calls\/[^/]+\/decision$/, decisionRoute.POST],
];

export async function startDoorServer(): Promise<{ base: string; server: http.Server; close(): Promise<void> }> {
  const server = http.createServer((request, response) => void serve(request, response));
  async function serve(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const verdict = guardRequest(request, { port: (server.address() as AddressInfo).port, extraHosts: [], accessToken: 'page-token-that-the-door-does-not-need-0000' });
    if (!verdict.ok) return void response.writeHead(verdict.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: verdict.code, message: verdict.message } }));
    const pathname = new URL(request.url ?? '/', 'http://door').pathname;
    const route = routes.find(([method, path]) => method === request.method && path.test(pathname));
    if (!route) return void response.writeHead(404).end();
    // The bridge the app's server answers chat completions with (server.ts): every door test goes through it.
    await serveWebHandler(request, response, route[2]);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The mind on the fake model (as the defaults of new sessions), the orchestrator, and the doors. */
export async function startMindAndDoors(): Promise<{ model: FakeOpenAIServer; door: Awaited<ReturnType<typeof startDoorServer>> }> {
  const model = await startFakeOpenAIServer({ script: mindScript });
  await startOrchestrator();
  const layer = { backend: 'openai_compatible' as const, model: 'fake-large', max_tokens: 256, endpoint: `${model.url}/v1` };
  await writeSettings({ ...(await readSettings()), models: { c_model: layer, s_model: { ...layer, model: 'fake-small' } } });
  return { model, door: await startDoorServer() };
}

/** A key of Settings › Access, as its route makes it: its secret. */
export async function newKey(name: string, personas: string[]): Promise<string> {
  const made = await keysRoute.POST(new Request('http://x/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, personas }) }), {});
  return ((await made.json()) as { key: { secret: string } }).key.secret;
}
