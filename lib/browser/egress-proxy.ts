// The only way out for the browser (issue 45 §3, ARCHITECTURE §22): every request a page makes —
// navigations, sub-resources, redirects, WebSockets, downloads — reaches Chromium's per-context
// proxy, this one, on loopback. Each session's context signs in with its own random credentials,
// which name its rules; an unknown or missing credential gets 407 and nothing else (the proxy is no
// open relay for other local programs). A host passes when its graph lists it (any address, the
// link-local metadata range excepted for names), or when the owner allows browsing and every address
// it resolves to is public; the connection then goes to exactly the addresses judged (no second
// lookup for DNS rebinding to change). Refusals are kept per session for the model to read.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';
import { isLinkLocalAddress, isPrivateAddress } from '@/lib/security/network-address';
import { resolveHost, systemResolve, type Resolve } from '@/lib/security/pinned-fetch';
import { errorText } from '@/lib/errors/error-text';

export interface EgressRules {
  /** Hosts the graph lists (lower case, "name" or "name:port"). */
  allowedHosts: ReadonlySet<string>;
  /** The owner allows browsing any public host. */
  allowPublic: boolean;
}

export interface Refusal {
  url: string;
  reason: string;
  at: number;
}

interface Client {
  password: Buffer;
  rules: EgressRules;
  refusals: Refusal[];
}

const MAX_REFUSALS = 50;
const defaultPort = (protocol: string) => (protocol === 'https:' || protocol === 'wss:' ? 443 : 80);

/** Why this host:port may not be reached under these rules, or the addresses to connect to. */
export async function judgeHost(hostname: string, port: number, rules: EgressRules, resolve: Resolve = systemResolve): Promise<{ addresses: string[] } | { refused: string }> {
  const name = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  const shown = net.isIPv6(name) ? `[${name}]` : name;
  const listed = rules.allowedHosts.has(`${shown}:${port}`) || (rules.allowedHosts.has(shown) && (port === 80 || port === 443));
  if (!listed && !rules.allowPublic) return { refused: `${shown}:${port} is not an allowed host (allowed: ${[...rules.allowedHosts].sort().join(', ') || 'none'})` };
  let addresses: string[];
  try {
    addresses = await resolveHost(name, resolve);
  } catch (error) {
    return { refused: `${shown} could not be resolved (${errorText(error)})` };
  }
  const metadata = net.isIP(name) ? undefined : addresses.find(isLinkLocalAddress);
  if (metadata) return { refused: `${shown} resolves to a link-local (cloud metadata) address (${metadata})` };
  if (!listed) {
    const inside = addresses.find(isPrivateAddress);
    if (inside) return { refused: `${shown} resolves to a loopback, private or link-local address (${inside}); list the host to allow it` };
  }
  return { addresses };
}

export class EgressProxy {
  private server: http.Server | null = null;
  private readonly clients = new Map<string, Client>();
  private readonly sockets = new Set<Duplex>();

  constructor(private readonly resolve: Resolve = systemResolve) {}

  /** Listens on loopback (once); the address Chromium's contexts use. */
  async start(): Promise<string> {
    if (this.server) return this.url();
    const server = http.createServer((request, response) => void this.forward(request, response));
    server.on('connect', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(request, socket, head));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return this.url();
  }

  url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** New credentials for a context under these rules. */
  register(rules: EgressRules): { username: string; password: string } {
    const username = randomBytes(12).toString('hex');
    const password = randomBytes(24).toString('hex');
    this.clients.set(username, { password: Buffer.from(password), rules, refusals: [] });
    return { username, password };
  }

  unregister(username: string): void {
    this.clients.delete(username);
  }

  /** The refusals since the last call, oldest first. */
  takeRefusals(username: string): Refusal[] {
    const client = this.clients.get(username);
    if (!client) return [];
    return client.refusals.splice(0);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = null;
    this.clients.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private client(request: http.IncomingMessage): Client | null {
    const header = request.headers['proxy-authorization'];
    if (typeof header !== 'string' || !header.startsWith('Basic ')) return null;
    const [username = '', ...rest] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    const client = this.clients.get(username);
    const given = Buffer.from(rest.join(':'));
    if (!client || given.length !== client.password.length || !timingSafeEqual(given, client.password)) return null;
    return client;
  }

  private refuse(client: Client, url: string, reason: string): void {
    client.refusals.push({ url, reason, at: Date.now() });
    if (client.refusals.length > MAX_REFUSALS) client.refusals.shift();
  }

  /** A plain-HTTP request (absolute URL): judged, then sent to the judged address. */
  private async forward(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const client = this.client(request);
    if (!client) {
      response.writeHead(407, { 'proxy-authenticate': 'Basic realm="agentcsd-browser"', connection: 'close' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      response.writeHead(400).end('Not a proxy request');
      return;
    }
    if (target.protocol !== 'http:' && target.protocol !== 'ws:') {
      this.refuse(client, target.href, `${target.protocol} is not reached through the browser`);
      response.writeHead(403).end();
      return;
    }
    const port = Number(target.port || defaultPort(target.protocol));
    const judged = await judgeHost(target.hostname, port, client.rules, this.resolve);
    if ('refused' in judged) {
      this.refuse(client, target.href, judged.refused);
      response.writeHead(403, { 'content-type': 'text/plain' }).end(`Refused by AgentCSD: ${judged.refused}`);
      return;
    }
    const headers = { ...request.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request({ host: judged.addresses[0], port, method: request.method, path: `${target.pathname}${target.search}`, headers, setHost: false });
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      // The browser hanging up (a cancelled download, a closed tab) ends the upstream too: nothing
      // stays open, paused, holding the site's connection.
      pipeline(answer, response, (error) => {
        if (error) upstream.destroy();
      });
    });
    upstream.on('error', (error) => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' }).end(`Could not reach ${target.host}: ${error.message}`);
      else response.destroy();
    });
    request.pipe(upstream);
  }

  /** CONNECT host:port (HTTPS, WSS, and WS through a tunnel): judged, then a TCP pipe to the judged address. */
  private async tunnel(request: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => undefined);
    const client = this.client(request);
    if (!client) {
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="agentcsd-browser"\r\nConnection: close\r\n\r\n');
      return;
    }
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(request.url ?? '');
    if (!match) {
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const [, hostname, portText] = match;
    const port = Number(portText);
    const judged = await judgeHost(hostname!, port, client.rules, this.resolve);
    if ('refused' in judged) {
      this.refuse(client, `${port === 443 ? 'https' : 'tcp'}://${hostname}:${port}/`, judged.refused);
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    const upstream = net.connect({ host: judged.addresses[0], port });
    upstream.on('error', () => socket.destroy());
    upstream.once('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    socket.once('close', () => upstream.destroy());
  }
}
