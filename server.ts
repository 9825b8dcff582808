// Composition root: one HTTP server carrying Next and Socket.IO, the orchestrator started on
// globalThis, every request passed through the localhost guard, clean shutdown on signals.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import next from 'next';
import { appPaths, readEnv } from './lib/config/env';
import { AgentMcpEndpoint, MCP_PATH } from './lib/agent/agent-mcp-endpoint';
import { McpDoor, MCP_DOOR_PATH } from './lib/http/mcp-door';
import { postChatCompletion } from './lib/http/openai-door';
import { serveWebHandler } from './lib/http/web-bridge';
import { startOrchestrator, stopOrchestrator } from './lib/orchestrator/orchestrator';
import { backupService } from './lib/backup/backup-service';
import { checkBackends, describeAvailability } from './lib/setup/backend-availability';
import { attachSocketServer } from './lib/realtime/socket-server';
import { isLoopbackAddress, type GuardOptions } from './lib/security/request-guard';
import { acceptTokenFromUrl, guardRequest, hotReloadAllowed, limitConnections, parseRequestTarget, refuse } from './lib/security/http-entry';
import { hardeningHeaders, newNonce, policyForPath } from './lib/security/content-security-policy';
import { closeDb, getDb, storeLocation } from './lib/store/db';
import { holdGuard, keptAccessToken, signInIsOn } from './lib/security/access-token';
import { decideEntry, dropServerHeaders, PEER_HEADER, peerOf, trustedProxies, visitorHeaders, type Visitor } from './lib/web-auth/web-entry';
import { publicOrigin } from './lib/web-auth/relying-party';
import { Presence } from './lib/web-auth/presence';
import { startPushNotifier } from './lib/web-auth/push-notifier';
import { DataFolderInUseError, lockDataFolder, type DataFolderLock } from './lib/store/data-folder-lock';
import { createEngine, processName, redactUrl } from './lib/engine/create-engine';
import { Cluster } from './lib/engine/cluster';
import { realClock } from './lib/clock/clock';
import { startTracing, stopTracing } from './lib/telemetry/traces';
import { errorText } from './lib/errors/error-text';
import { healthReport } from './lib/http/health';

process.env.NEXT_TELEMETRY_DISABLED ??= '1';

const env = readEnv();
const dev = env.NODE_ENV !== 'production';
const paths = appPaths(env);
const exposed = !isLoopbackAddress(env.HOST);
// Behind a TLS reverse proxy for phones (issue 61 §4): its name is ours, and phones are other machines.
const publicUrl = publicOrigin(env.AGENTCSD_PUBLIC_URL);
const proxies = trustedProxies(env.AGENTCSD_TRUSTED_PROXIES);
const guard: GuardOptions = {
  port: env.PORT,
  extraHosts: [
    ...env.AGENTCSD_ALLOWED_HOSTS.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean),
    ...(exposed && env.HOST !== '0.0.0.0' && env.HOST !== '::' ? [env.HOST.toLowerCase()] : []),
  ],
  // Made once and kept in the data folder: a restart does not lock the owner out (issue 75 §5). On
  // loopback the first invite turns it on (issue 75 §2), and it stays on at every start after.
  accessToken: env.AGENTCSD_ACCESS_TOKEN ?? (exposed || publicUrl || signInIsOn(paths.dataDir) ? keptAccessToken(paths.dataDir) : undefined),
  ...(publicUrl && { publicUrl }),
};
holdGuard(guard);

// `npm run worker`: another process on the same PostgreSQL that runs sessions' minds and tasks
// but serves no pages (only the tool server the Claude Code CLI calls back).
const worker = process.argv.includes('--worker');
const location = storeLocation();
if (worker && location.kind !== 'postgres') {
  console.error('> npm run worker shares the work of an app on PostgreSQL: set AGENTCSD_DATABASE_URL (README, "More than one process")');
  process.exit(1);
}
// On SQLite, one process per data folder: a second one would run every session's mind again. On
// PostgreSQL the processes share the sessions through leases (lib/engine/cluster.ts).
if (location.kind === 'sqlite') {
  let folderLock: DataFolderLock;
  try {
    folderLock = await lockDataFolder(paths.dataDir, { port: env.PORT });
  } catch (error) {
    if (!(error instanceof DataFolderInUseError)) throw error;
    console.error(`> ${error.message}`);
    process.exit(1);
  }
  process.on('exit', () => folderLock.release());
}
// Creates and migrates the store before anything is served; a PostgreSQL store unreachable or
// refusing ends the start in one line (the password masked), like the engine below.
await getDb().catch((error: unknown) => {
  const where = location.kind === 'sqlite' ? `SQLite ${location.file}` : `PostgreSQL on ${redactUrl(location.url)}`;
  console.error(`> cannot start (store: ${where}): ${errorText(error)}`);
  process.exit(1);
});
// Traces to an OTLP endpoint when the standard OTEL_* variables name one (nothing loaded otherwise).
if (await startTracing()) console.log('> tracing to OpenTelemetry (OTEL_EXPORTER_OTLP_*)');
const engine = await createEngine(env, realClock, { clustered: location.kind === 'postgres' });
const cluster = location.kind === 'postgres' ? new Cluster({ url: location.url, owner: processName(env), capacity: env.AGENTCSD_CAPACITY }) : undefined;
const orchestrator = await startOrchestrator({ taskWorkingDelayMs: env.AGENTCSD_TASK_STEP_DELAY_MS, configured: engine, cluster, channels: true }).catch((error: unknown) => {
  // The durable engine's database unreachable or refusing: say so in one line (DBOS masks the password).
  console.error(`> cannot start (engine: ${engine.description}): ${errorText(error)}`);
  process.exit(1);
});
console.log(`> engine: ${engine.description}`);
if (cluster) console.log(`> sharing sessions on PostgreSQL as ${cluster.owner}${worker ? ' (worker: no pages here)' : ''}`);
const app = worker ? null : next({ dev, hostname: env.HOST, port: env.PORT });
await app?.prepare();
const handleNext = app?.getRequestHandler();

// The Claude Code CLI reaches the app's tools here (lib/agent/agent-mcp-endpoint.ts): loopback
// peers only, the usual Host check, and a token per CLI run instead of an Origin.
const toolServer = new AgentMcpEndpoint(`http://127.0.0.1:${env.PORT}${MCP_PATH}`);
// Outside MCP clients (issue 46): a key of Settings › Access instead of the page's Origin and token.
const mcpDoor = new McpDoor(orchestrator, `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.PORT}`);

function handleRequest(request: IncomingMessage, response: ServerResponse): void {
  if (request.url === MCP_PATH || request.url?.startsWith(`${MCP_PATH}?`)) {
    toolServer.handleGuarded(request, response, guard);
    return;
  }
  if (request.url === MCP_DOOR_PATH || request.url?.startsWith(`${MCP_DOOR_PATH}?`)) {
    mcpDoor.handleGuarded(request, response, guard);
    return;
  }
  dropServerHeaders(request);
  const verdict = guardRequest(request, guard);
  // The token in the URL is checked before the guard: it is how a browser gets the cookie.
  if ((verdict.ok || verdict.code === 'unauthorized') && acceptTokenFromUrl(request, response, guard)) return;
  if (!verdict.ok && verdict.code !== 'unauthorized') {
    refuse(response, verdict.status, verdict.code, verdict.message);
    return;
  }
  if (verdict.ok && verdict.exempt) {
    serve(request, response, { kind: 'stranger' });
    return;
  }
  // Who it is (the owner's token, a passkey's session, or nobody) and what they reach (issue 61).
  const target = parseRequestTarget(request.url)!;
  const method = request.method ?? 'GET';
  const back = new URLSearchParams(target.searchParams);
  back.delete('token'); // a wrong token in a link is not carried to the sign-in page's address
  decideEntry({ method, pathname: target.pathname, search: back.size ? `?${back}` : '', cookie: request.headers.cookie, tokenOk: verdict.ok, open: !guard.accessToken, now: new Date() }).then(
    (decision) => {
      if (decision.pass) serve(request, response, decision.visitor);
      else if (decision.answer === 'sign-in') response.writeHead(303, { location: decision.location, 'cache-control': 'no-store' }).end();
      // Not theirs: a page shows the app's own "not found", as for a page that does not exist.
      else if (decision.answer === 'not-found' && decision.visitor && !target.pathname.startsWith('/api/') && ['GET', 'HEAD'].includes(method.toUpperCase())) serve(request, response, decision.visitor, true);
      else if (decision.answer === 'not-found') refuse(response, 404, 'not_found', 'Not found');
      else refuse(response, 401, 'unauthorized', 'Sign in with a passkey, or send the access token');
    },
    (error: unknown) => {
      console.error('[http] sign-in check failed', error);
      refuse(response, 500, 'internal', 'The request failed');
    },
  );
}

function serve(request: IncomingMessage, response: ServerResponse, visitor: Visitor, notFound = false): void {
  Object.assign(request.headers, visitorHeaders(visitor), { [PEER_HEADER]: peerOf(request, proxies) });
  letThrough(request.socket);
  // A fresh nonce per answer: Next reads it from the request's policy header for its own scripts.
  const policy = policyForPath(parseRequestTarget(request.url)?.pathname ?? '/', { nonce: newNonce(), dev });
  request.headers['content-security-policy'] = policy;
  response.setHeader('content-security-policy', policy);
  for (const [name, value] of Object.entries(hardeningHeaders)) response.setHeader(name, value);
  if (app && notFound) {
    app.render404(request, response).catch(() => refuse(response, 404, 'not_found', 'Not found'));
  } else if (handleNext && request.method === 'POST' && parseRequestTarget(request.url)?.pathname === '/v1/chat/completions') {
    // The door's hot path without Next's router (the same handler as its route in app/).
    serveWebHandler(request, response, postChatCompletion).catch((error: unknown) => {
      console.error('[http] request failed', error);
      if (!response.headersSent) refuse(response, 500, 'internal', 'The request failed');
      else response.destroy();
    });
  } else if (handleNext) {
    handleNext(request, response).catch((error: unknown) => {
      console.error('[http] request failed', error);
      refuse(response, 500, 'internal', 'The request failed');
    });
  } else if (request.url === '/api/health') {
    // A worker says what is down too (it said ok with the database gone, issue 73 §3).
    void healthReport({ ...(cluster?.owner && { worker: cluster.owner }) }).then(
      (report) => response.writeHead(report.ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(report)),
      () => refuse(response, 500, 'internal', 'The health check failed'),
    );
  }
  else refuse(response, 404, 'worker', 'This process is a worker: open the app where `npm run dev` runs');
}

// One guarded entry: whatever a request holds, it is answered (a throw here would leave the
// connection open and unanswered).
const httpServer = createServer((request, response) => {
  try {
    handleRequest(request, response);
  } catch (error) {
    console.error('[http] malformed request refused:', errorText(error));
    refuse(response, 400, 'bad_request', 'The request could not be read');
  }
});
const letThrough = limitConnections(httpServer);

const presence = new Presence();
const io = await attachSocketServer({ httpServer, orchestrator, guard, presence, postgresUrl: location.kind === 'postgres' ? location.url : undefined });
// Cards and unprompted words to the phones of people with no page open (issue 61 §5).
const stopPush = startPushNotifier({ bus: orchestrator.bus, present: (personId) => presence.has(personId), report: (message) => console.error(message) });
// The daily backup (Settings › Backups, issue 63): where the pages are (a worker takes none); a failure is told to the owner's chats.
if (!worker) backupService().start({ tellOwner: (text) => orchestrator.channels?.tellOwner(text) });

// Next's hot-reload websocket shares the server with Socket.IO's own upgrade handler.
if (dev && app) {
  const handleUpgrade = app.getUpgradeHandler();
  httpServer.on('upgrade', (request, socket, head) => {
    if (request.url?.startsWith('/socket.io/')) return;
    if (!hotReloadAllowed(guardRequest(request, guard, 'GET'), request.url)) {
      socket.destroy();
      return;
    }
    void handleUpgrade(request, socket, head);
  });
}

httpServer.once('error', (error: NodeJS.ErrnoException) => {
  // Sessions are left as they are (active ones resume at the next start), as after a crash.
  console.error(error.code === 'EADDRINUSE' ? `> port ${env.PORT} on ${env.HOST} is in use: stop what uses it, or set PORT` : `> cannot listen: ${error.message}`);
  process.exit(1);
});
httpServer.listen(env.PORT, env.HOST, () => {
  orchestrator.setToolServer(toolServer);
  const shown = env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST;
  console.log(`> AgentCSD ${worker ? 'worker ' : ''}ready on http://${shown}:${env.PORT} (${dev ? 'development' : 'production'})`);
  console.log(`> data: ${paths.dataDir}  personas: ${paths.personasDir}`);
  if (guard.accessToken) {
    const where = publicUrl ? `served at ${publicUrl.origin}` : exposed ? 'bound to a non-loopback address' : env.AGENTCSD_ACCESS_TOKEN ? 'an access token is set' : 'sign-in is on (people were invited)';
    console.log(`> ${where}: open ${publicUrl?.origin ?? `http://${shown}:${env.PORT}`}/?token=${guard.accessToken}`);
  }
  // What can answer here, in the background: the home page shows it, and the terminal too.
  void checkBackends().then(
    (report) => console.log(`> models: ${describeAvailability(report)}`),
    (error: unknown) => console.error('> model check failed', error),
  );
});

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  console.log(`> ${signal}: pausing sessions and closing`);
  const forced = setTimeout(() => process.exit(1), 8000);
  forced.unref();
  try {
    stopPush();
    backupService().stopSchedule();
    await stopOrchestrator();
    io.close();
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    await app?.close();
    await stopTracing();
    await closeDb();
  } catch (error) {
    // One line (the database may already be gone): what is unfinished stays for the next start.
    const code = (error as { code?: unknown }).code;
    console.error(`> shutdown failed: ${error instanceof Error ? (error.message.split('\n').find((line) => line.trim() && !/^Invalid `prisma/.test(line.trim())) ?? error.name).trim() : String(error)}${typeof code === 'string' ? ` (${code})` : ''}; unfinished work continues at the next start`);
    process.exit(1);
  }
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
