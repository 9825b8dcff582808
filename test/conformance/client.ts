// Our MCP client as the official conformance suite drives it (`conformance client --command …`):
// the suite appends the URL of its scenario's server and names the scenario in
// MCP_CONFORMANCE_SCENARIO (with MCP_CONFORMANCE_CONTEXT for pre-registered credentials). This is
// the app's own client — McpPool, McpConnection, McpAuth on the SDK, the real store in a
// temporary data folder — doing what a person does in the app: add the server, press Sign in
// and approve when it asks, then let the agent call its tools and accept its questions with the
// form's defaults filled in, as the card does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const serverUrl = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-conformance-'));
process.env.AGENTCSD_DATA_DIR = path.join(root, 'data');

const { McpAuth } = await import('@/lib/mcp/mcp-auth');
const { McpPool } = await import('@/lib/mcp/mcp-pool');
const { closeDb } = await import('@/lib/store/db');

const redirect = 'http://localhost:3999/oauth/callback';
const log = (...parts: unknown[]) => console.error(`[conformance ${scenario}]`, ...parts);

/** The answer a person gives by pressing Accept on a card whose fields hold the server's defaults. */
function acceptDefaults(request: { requestedSchema?: { properties?: Record<string, unknown> } }) {
  const content: Record<string, string | number | boolean> = {};
  for (const [name, property] of Object.entries(request.requestedSchema?.properties ?? {})) {
    const value = (property as { default?: unknown }).default;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') content[name] = value;
  }
  return Promise.resolve({ action: 'accept' as const, content });
}

/** What the browser does between Sign in and the callback: follow the authorization server's redirects. */
async function consent(authorizationUrl: string): Promise<URL> {
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 10; hop++) {
    if (url.href.startsWith(redirect)) return url;
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (!location) throw new Error(`the authorization server answered ${response.status} without sending the browser back`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}

const argsFor = (schema: { properties?: Record<string, { type?: string }> }) =>
  Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, property.type === 'number' || property.type === 'integer' ? 1 : property.type === 'boolean' ? true : 'conformance']));

const pool = new McpPool({
  auth: new McpAuth({ defaultRedirectUrl: () => redirect, owner: 'conformance' }),
  elicit: acceptDefaults,
  connectTimeoutMs: 20_000,
  backoffMs: [60_000],
});
let exitCode = 0;
try {
  // As a user configures it: a pasted client where the scenario pre-registered one, and the https
  // address of a Client ID Metadata Document (the suite's own), used where a server supports them.
  const oauth = {
    client_metadata_url: 'https://conformance-test.local/client-metadata.json',
    ...(context.client_id && { client_id: context.client_id }),
    ...(context.client_secret && { client_secret: context.client_secret }),
  };
  await pool.configure({ mcpServers: { server: { type: 'http', url: serverUrl, headers: {}, oauth } }, tools: {}, disabled: [] });
  await pool.settled();
  let status = pool.status()[0]!;
  for (let attempt = 0; status.state === 'needs_sign_in' && attempt < 2; attempt++) {
    log('needs sign-in:', status.last_error);
    const url = await pool.signIn('server', redirect);
    if (url) {
      const back = await consent(url);
      await pool.finishSignIn({ state: back.searchParams.get('state') ?? '', code: back.searchParams.get('code') ?? undefined, error: back.searchParams.get('error') ?? undefined });
    }
    await pool.settled();
    status = pool.status()[0]!;
  }
  if (status.state !== 'ready') throw new Error(`not connected: ${status.state} — ${status.last_error}`);
  for (const tool of pool.tools()) {
    const outcome = await tool.run(argsFor(tool.definition.inputSchema as never), { sessionId: 'conformance', workspaceDir: root, signal: AbortSignal.timeout(20_000) });
    log(tool.definition.name, outcome.isError ? 'error:' : '→', outcome.content.slice(0, 200));
    // A 401/403 mid-call (a step-up scope) signs in again, as the Sign in button would.
    if (outcome.isError && /needs a sign-in/.test(outcome.content)) {
      const url = await pool.signIn('server', redirect);
      if (url) {
        const back = await consent(url);
        await pool.finishSignIn({ state: back.searchParams.get('state') ?? '', code: back.searchParams.get('code') ?? undefined });
      }
      await pool.settled();
      const again = pool.tools().find((candidate) => candidate.definition.name === tool.definition.name);
      if (again) log(tool.definition.name, 'again →', (await again.run(argsFor(again.definition.inputSchema as never), { sessionId: 'conformance', workspaceDir: root, signal: AbortSignal.timeout(20_000) })).content.slice(0, 200));
    }
  }
} catch (error) {
  log('failed:', (error as Error).message);
  exitCode = 1;
} finally {
  await pool.stop();
  await closeDb();
  fs.rmSync(root, { recursive: true, force: true });
}
process.exit(exitCode);
