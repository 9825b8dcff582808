// Sends the malformed-request corpus (test/fixtures/malformed-requests.ts) raw to a real server
// on every surface and checks each one is answered, not left hanging: a hang shows up as the
// socket's own time limit. Returns what was sent and how it was answered, for the tests' notes.
import net from 'node:net';
import { expect } from '@playwright/test';
import { hostileHosts, hostileOrigins } from '../../test/fixtures/hostile-headers';
import { malformedCookies, malformedHosts, malformedOrigins, malformedRawLines, malformedTargets } from '../../test/fixtures/malformed-requests';
import { rawRequest, socketHandshake, type RawResponse } from './raw-http';

/** Far above any answer's time; a request still unanswered then was left hanging. */
const HANG_MS = 5_000;

type Send = (headers: [string, string][], path?: string) => Promise<RawResponse>;

export async function sendMalformedCorpus(
  port: number,
  authorization: [string, string][] = [],
  /** What the health check after the corpus sends (a token server needs its token). */
  healthHeaders: [string, string][] = authorization,
): Promise<{ sent: number; byStatus: Record<number, number> }> {
  const host: [string, string] = ['Host', `127.0.0.1:${port}`];
  const origin: [string, string] = ['Origin', `http://127.0.0.1:${port}`];
  const json: [string, string] = ['Content-Type', 'application/json'];
  const surfaces: Record<string, Send> = {
    page: (headers, path = '/') => rawRequest({ port, method: 'GET', path, headers, timeoutMs: HANG_MS }),
    'api read': (headers, path = '/api/sessions') => rawRequest({ port, method: 'GET', path, headers, timeoutMs: HANG_MS }),
    'api write': (headers, path = '/api/personas') =>
      rawRequest({ port, method: 'POST', path, headers: [...headers, json], body: '{"name":"malformed-probe","content":"x"}', timeoutMs: HANG_MS }),
    // The channels' routes (issue 28): a pairing approval for a channel that does not exist.
    'channels write': (headers, path = '/api/channels/00000000-0000-4000-8000-000000000000/pairings') =>
      rawRequest({ port, method: 'POST', path, headers: [...headers, json], body: '{"code":"AAAA-AAAA","persona":"probe"}', timeoutMs: HANG_MS }),
    // A webhook delivery (issue 29): no Origin or token needed, an unknown hook is 404 and nothing is signed.
    'webhook delivery': (headers, path = '/api/hooks/00000000-0000-4000-8000-000000000000') =>
      rawRequest({ port, method: 'POST', path, headers: [...headers, json], body: '{"probe":true}', timeoutMs: HANG_MS }),
    // MCP sign-in (issue 30): the OAuth callback a browser comes back to, and an elicitation answer.
    'oauth callback': (headers, path = '/oauth/callback?state=malformed-probe&code=x') => rawRequest({ port, method: 'GET', path, headers, timeoutMs: HANG_MS }),
    'elicitation answer': (headers, path = '/api/elicitations/00000000-0000-4000-8000-000000000000/answer') =>
      rawRequest({ port, method: 'POST', path, headers: [...headers, json], body: '{"action":"decline"}', timeoutMs: HANG_MS }),
    // Untrusted content (issue 32): the trusted sources (an invalid body: a 400 that changes nothing) and a description approval for no server.
    'trust write': (headers, path = '/api/trust') => rawRequest({ port, method: 'PUT', path, headers: [...headers, json], body: '{"hosts":"not-a-list"}', timeoutMs: HANG_MS }),
    'approve descriptions': (headers, path = '/api/mcp-servers/malformed-probe/approve-descriptions') =>
      rawRequest({ port, method: 'POST', path, headers: [...headers, json], body: '{}', timeoutMs: HANG_MS }),
    // The agent's browser (issue 45): a person's key for a browser that is not open — a 409, nothing typed.
    'browser input': (headers, path = '/api/sessions/00000000-0000-4000-8000-000000000000/browser/input') =>
      rawRequest({ port, method: 'POST', path, headers: [...headers, json], body: '{"type":"text","text":"x"}', timeoutMs: HANG_MS }),
    // The OpenAI-compatible door (issue 46): no key, so a 401 in OpenAI's shape whatever else is odd.
    'door': (headers, path = '/v1/chat/completions') =>
      rawRequest({ port, method: 'POST', path, headers: [...headers, json], body: '{"model":"persona/iris","messages":[{"role":"user","content":"x"}]}', timeoutMs: HANG_MS }),
    // Allowances (issue 48): an allowance with no limit — a 400 that changes nothing — and a spending query out of range.
    'allowances write': (headers, path = '/api/allowances') => rawRequest({ port, method: 'PUT', path, headers: [...headers, json], body: '{"allowances":[{"scope":"app"}]}', timeoutMs: HANG_MS }),
    'spending read': (headers, path = '/api/spending?days=0') => rawRequest({ port, method: 'GET', path, headers, timeoutMs: HANG_MS }),
    'socket handshake': (headers) => rawRequest({ port, ...socketHandshake(headers), timeoutMs: HANG_MS }),
  };
  const byStatus: Record<number, number> = {};
  let sent = 0;
  const answered = async (label: string, response: Promise<RawResponse>, allowed: (status: number) => boolean) => {
    const { status, head } = await response.catch((error: Error) => ({ status: 0, head: error.message, body: '' }));
    sent++;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    expect(allowed(status), `${label} → ${head.split('\r\n')[0]}`).toBe(true);
  };
  const refused = (status: number) => status >= 400 && status < 500;
  const answeredAtAll = (status: number) => status > 0 && status < 500;

  const jobs: (() => Promise<void>)[] = [];
  for (const [name, send] of Object.entries(surfaces)) {
    for (const cookie of malformedCookies) {
      // Undecodable ones are a 400 (lib/security/http-entry.test.ts); the rest are merely odd.
      jobs.push(() => answered(`${name} cookie ${cookie.slice(0, 40)}`, send([host, origin, ['Cookie', cookie]]), answeredAtAll));
    }
    for (const value of [...malformedHosts, ...hostileHosts(port).slice(0, 12)]) {
      jobs.push(() => answered(`${name} Host ${JSON.stringify(value.slice(0, 40))}`, send([['Host', value], origin, ...authorization]), refused));
    }
    for (const value of [...malformedOrigins, ...hostileOrigins(port).slice(0, 12)]) {
      // A GET with a foreign Origin is a plain read (no CORS grant): answered, whatever it is.
      const allowed = name === 'page' || name === 'api read' ? answeredAtAll : refused;
      jobs.push(() => answered(`${name} Origin ${JSON.stringify(value.slice(0, 40))}`, send([host, ['Origin', value], ...authorization]), allowed));
    }
  }
  // Request targets: the page and the API surfaces take a path.
  for (const target of malformedTargets) {
    for (const name of ['page', 'api write'] as const) {
      jobs.push(() => answered(`${name} ${target.slice(0, 40)}`, surfaces[name]!([host, origin, ...authorization], target), answeredAtAll));
    }
  }
  for (const line of malformedRawLines) {
    // Node's parser refuses most with a 400 before any handler; a doubled space it reads as one.
    jobs.push(() => answered(`raw ${JSON.stringify(line)}`, rawRequest({ port, method: '', path: '', requestLine: line, headers: [host, ...authorization], timeoutMs: HANG_MS }), answeredAtAll));
  }
  // In waves of 40 at once: also what a flood of them does to the server.
  for (let start = 0; start < jobs.length; start += 40) await Promise.all(jobs.slice(start, start + 40).map((job) => job()));
  const health = await rawRequest({ port, method: 'GET', path: '/api/health', headers: [host, ...healthHeaders] });
  expect(health.status, 'healthy after the corpus').toBe(200);
  return { sent, byStatus };
}

/**
 * Opens `count` connections that send nothing: past the per-peer cap for connections not yet let
 * through, the server closes new ones at once. Returns how many it closed within a moment.
 */
export async function openIdleConnections(port: number, count: number): Promise<{ closedAtOnce: number; sockets: net.Socket[] }> {
  const sockets: net.Socket[] = [];
  let closedAtOnce = 0;
  await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<void>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        sockets.push(socket);
        socket.on('error', () => {});
        socket.once('connect', () => {
          const timer = setTimeout(resolve, 1_000);
          socket.once('close', () => {
            closedAtOnce++;
            clearTimeout(timer);
            resolve();
          });
        });
      }),
    ),
  );
  return { closedAtOnce, sockets };
}
