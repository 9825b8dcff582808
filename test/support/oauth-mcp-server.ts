// A real OAuth 2.1 authorization server (oidc-provider, a certified OpenID Connect / OAuth 2
// server library) on one loopback port, in front of an MCP server built with the SDK on another,
// which takes only bearer tokens issued for it (JWTs verified against the authorization server's
// keys, audience checked). Dynamic client registration, PKCE, RFC 8707 resource indicators,
// rotating refresh tokens and RFC 7009 revocation are the library's own. Its sign-in pages are
// oidc-provider's development pages: any login, then a consent button.
//
// For the security corpus, `tamper` rewrites what the servers say (metadata, registration answers,
// protected-resource metadata) on the way out; everything else is untouched.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import Provider, { errors } from 'oidc-provider';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { z } from 'zod';

type Json = Record<string, unknown>;

export interface OAuthMcpServerOptions {
  /** Seconds an access token lives. */
  accessTokenTtl?: number;
  tamper?: {
    /** The authorization server's metadata as served. */
    metadata?: (metadata: Json) => Json;
    /** A dynamic registration's answer as served. */
    registration?: (answer: Json) => Json;
    /** The MCP server's protected-resource metadata as served. */
    resource?: (metadata: Json) => Json;
    /** A token endpoint's answer as served. */
    token?: (answer: Json) => Json;
  };
}

export interface OAuthMcpServer {
  mcpUrl: string;
  issuer: string;
  /** What the token endpoint was asked, in order (grant types). */
  tokenRequests: string[];
  registrations: number;
  /** Bearer tokens the MCP server accepted, in order. */
  acceptedTokens: string[];
  provider: Provider;
  /** Destroys a refresh token as a revocation (or an administrator) would. */
  revokeRefreshToken(token: string): Promise<void>;
  /** Destroys every refresh token issued so far (an administrator ending the grants). */
  revokeAllRefreshTokens(): Promise<void>;
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function readBody(request: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export async function startOAuthMcpServer(options: OAuthMcpServerOptions = {}): Promise<OAuthMcpServer> {
  const ttl = options.accessTokenTtl ?? 3600;
  const asServer = http.createServer();
  const mcpServer = http.createServer();
  const asPort = await listen(asServer);
  const mcpPort = await listen(mcpServer);
  const issuer = `http://127.0.0.1:${asPort}`;
  const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  const result = { tokenRequests: [] as string[], registrations: 0, acceptedTokens: [] as string[] };

  const provider = new Provider(issuer, {
    clients: [],
    scopes: ['openid', 'offline_access', 'mcp:tools'],
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_context, resource) => {
          if (resource !== mcpUrl) throw new errors.InvalidTarget();
          return { scope: 'mcp:tools', audience: mcpUrl, accessTokenTTL: ttl, accessTokenFormat: 'jwt' };
        },
      },
    },
    issueRefreshToken: async (_context, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: { AccessToken: ttl, RefreshToken: 24 * 3600, Grant: 24 * 3600, Session: 3600, Interaction: 600, AuthorizationCode: 60 },
    pkce: { required: () => true },
    // The development pages are enough here: any login, then consent.
    cookies: { keys: ['agentcsd-test-cookie-key'] },
  });
  provider.on('grant.success', (context) => {
    result.tokenRequests.push(String((context.oidc.params as { grant_type?: string } | undefined)?.grant_type ?? 'unknown'));
  });
  const refreshTokens: string[] = [];
  provider.on('refresh_token.saved', (token: { jti: string }) => void refreshTokens.push(token.jti));
  provider.on('registration_create.success', () => {
    result.registrations++;
  });
  const providerCallback = provider.callback();

  // Pass through, or rewrite a JSON answer on its way out (the corpus's hostile servers).
  asServer.on('request', (request, response) => {
    const path = (request.url ?? '').split('?')[0]!;
    const tamper =
      path.startsWith('/.well-known/oauth-authorization-server') || path.startsWith('/.well-known/openid-configuration')
        ? options.tamper?.metadata
        : path === '/reg' && request.method === 'POST'
          ? options.tamper?.registration
          : path === '/token' && request.method === 'POST'
            ? options.tamper?.token
            : undefined;
    if (!tamper || request.headers['x-untampered']) return void providerCallback(request, response);
    void (async () => {
      const body = request.method === 'POST' ? await readBody(request) : undefined;
      const headers = Object.fromEntries(Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
      const answer = await fetch(`${issuer}${request.url}`, { method: request.method, headers: { ...headers, 'x-untampered': '1' }, body: body ? new Uint8Array(body) : undefined });
      const json = (await answer.json()) as Json;
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(tamper(json)));
    })();
  });

  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const app = express();
  const resourceMetadataUrl = `http://127.0.0.1:${mcpPort}/.well-known/oauth-protected-resource/mcp`;
  const resourceMetadata = (): Json => {
    const metadata: Json = { resource: mcpUrl, authorization_servers: [issuer], scopes_supported: ['mcp:tools'], bearer_methods_supported: ['header'] };
    return options.tamper?.resource ? options.tamper.resource(metadata) : metadata;
  };
  app.get(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'], (_request, response) => void response.json(resourceMetadata()));
  app.use(
    '/mcp',
    requireBearerAuth({
      resourceMetadataUrl,
      expectedResource: new URL(mcpUrl),
      verifier: {
        verifyAccessToken: async (token) => {
          try {
            const { payload } = await jwtVerify(token, jwks, { issuer, audience: mcpUrl });
            result.acceptedTokens.push(token);
            return { token, clientId: String(payload.client_id ?? ''), scopes: String(payload.scope ?? '').split(' '), expiresAt: payload.exp, resource: new URL(mcpUrl), extra: { sub: payload.sub } };
          } catch (error) {
            const { InvalidTokenError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js');
            throw new InvalidTokenError(`token refused: ${(error as Error).message}`);
          }
        },
      },
    }),
  );
  app.post('/mcp', express.json(), async (request, response) => {
    const server = new McpServer({ name: 'oauth-test-server', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Who signed in', inputSchema: { greeting: z.string().optional() } }, async (_args, extra) => ({
      content: [{ type: 'text', text: `signed in as ${String(extra.authInfo?.extra?.sub ?? 'nobody')}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
  });
  app.all('/mcp', (_request, response) => void response.status(405).json({ error: 'method not allowed' }));
  mcpServer.on('request', app);

  return {
    mcpUrl,
    issuer,
    get tokenRequests() {
      return result.tokenRequests;
    },
    get registrations() {
      return result.registrations;
    },
    get acceptedTokens() {
      return result.acceptedTokens;
    },
    provider,
    revokeRefreshToken: async (token) => {
      const found = await provider.RefreshToken.find(token);
      await found?.destroy();
    },
    revokeAllRefreshTokens: async () => {
      for (const jti of refreshTokens.splice(0)) await (await provider.RefreshToken.find(jti))?.destroy();
    },
    close: async () => {
      for (const server of [asServer, mcpServer]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

/**
 * Does what a person does on oidc-provider's development pages: opens the authorization URL, signs
 * in as `login`, presses Continue on the consent page, and returns where the browser is sent back.
 */
export async function consentInBrowserless(authorizationUrl: string, login = 'ada'): Promise<URL> {
  const cookies = new Map<string, string>();
  const remember = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      cookies.set(name!.trim(), value.join('='));
    }
  };
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  let url = new URL(authorizationUrl);
  const origin = url.origin;
  let body: URLSearchParams | null = null;
  for (let step = 0; step < 12; step++) {
    if (url.origin !== origin) return url; // back at the client
    const response = await fetch(url, { method: body ? 'POST' : 'GET', redirect: 'manual', headers: { cookie: cookieHeader(), ...(body && { 'content-type': 'application/x-www-form-urlencoded' }) }, body: body ?? undefined });
    remember(response);
    body = null;
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url);
      continue;
    }
    const html = await response.text();
    if (html.includes('name="login"')) body = new URLSearchParams({ prompt: 'login', login, password: 'any' });
    else if (html.includes('value="consent"')) body = new URLSearchParams({ prompt: 'consent' });
    else throw new Error(`unexpected page at ${url.href} (${response.status}): ${html.slice(0, 300)}`);
    const action = /action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form at ${url.href}`);
    url = new URL(action.replace(/&amp;/g, '&'), url);
  }
  throw new Error('the sign-in did not come back');
}
