// The sign-in's security corpus (issue 30 §4): a hostile or confused server's documents are
// refused and nothing is kept — no registration, no tokens. The authorization server is real
// (oidc-provider); `tamper` rewrites what it or the MCP server says on the way out.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { getDb } from '@/lib/store/db';
import { readMcpAuth } from '@/lib/store/mcp-tokens-repository';
import { McpAuth } from '@/lib/mcp/mcp-auth';
import { checkAuthorizationServer, checkTokenAudience, guardedOAuthFetch, OAuthRefusal } from '@/lib/mcp/oauth-guard';
import { isPrivateAddress } from '@/lib/security/network-address';
import { consentInBrowserless, startOAuthMcpServer, type OAuthMcpServer, type OAuthMcpServerOptions } from '../support/oauth-mcp-server';
import { useTempAppDirs } from '../support/temp-app-dirs';

useTempAppDirs();
const redirect = 'http://localhost:3999/oauth/callback';
const servers: OAuthMcpServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await (await getDb()).mcpToken.deleteMany({});
});

async function hostile(tamper: OAuthMcpServerOptions['tamper']) {
  const server = await startOAuthMcpServer({ tamper });
  servers.push(server);
  const auth = new McpAuth({ defaultRedirectUrl: () => redirect, owner: 'corpus' });
  const config = { type: 'http' as const, url: server.mcpUrl, headers: {} };
  return { server, auth, config };
}

async function nothingKept() {
  const record = await readMcpAuth('remote');
  expect(record?.tokens ?? null).toBeNull();
  expect(record?.clientInformation ?? null).toBeNull();
}

const fakeJwt = (claims: Record<string, unknown>) => `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;

describe('a sign-in refuses what a hostile server says', () => {
  test('an authorization server that calls itself by another origin than the one it was found at', async () => {
    const { server, auth, config } = await hostile({ metadata: (metadata) => ({ ...metadata, issuer: 'https://login.example.com' }) });
    await expect(auth.signIn('remote', config, redirect)).rejects.toMatchObject({ code: 'refused', message: expect.stringContaining('calls itself "https://login.example.com"') });
    expect(server.registrations).toBe(0);
    await nothingKept();
  });

  test('a registration that answers with a redirect URI that is not ours', async () => {
    const { auth, config } = await hostile({ registration: (answer) => ({ ...answer, redirect_uris: ['https://collector.example/callback'] }) });
    await expect(auth.signIn('remote', config, redirect)).rejects.toMatchObject({ code: 'refused', message: expect.stringContaining('not ours') });
    await nothingKept();
  });

  test('protected-resource metadata that names another resource (a token for it would be sent elsewhere)', async () => {
    const { server, auth, config } = await hostile({ resource: (metadata) => ({ ...metadata, resource: 'http://127.0.0.1:9/elsewhere' }) });
    await expect(auth.signIn('remote', config, redirect)).rejects.toThrow(/does not match|elsewhere/);
    expect(server.registrations).toBe(0);
    await nothingKept();
  });

  test('a token whose audience is another resource', async () => {
    const { auth, config } = await hostile({ token: (answer) => ({ ...answer, access_token: fakeJwt({ aud: 'https://other.example/mcp', sub: 'ada' }) }) });
    const url = await auth.signIn('remote', config, redirect);
    const back = await consentInBrowserless(url!);
    const configOf = () => config;
    await expect(auth.finishSignIn({ state: back.searchParams.get('state')!, code: back.searchParams.get('code')! }, configOf)).rejects.toMatchObject({
      code: 'refused',
      message: expect.stringContaining('not for'),
    });
    expect((await readMcpAuth('remote'))!.tokens).toBeNull();
  });
});

describe('documents from the internet may not point the app at this machine or its network', () => {
  const remote = 'https://mcp.example.com/mcp';

  test('a metadata or token endpoint on a private or loopback address, for a server on the internet', async () => {
    const fetch = vi.fn(async () => new Response('{}'));
    const resolve = async (host: string) => (host === 'sso.example.com' ? ['10.1.2.3'] : host === 'ok.example.com' ? ['93.184.216.34'] : ['203.0.113.9']);
    const guarded = guardedOAuthFetch(remote, { resolve, fetch: fetch as unknown as typeof globalThis.fetch });
    for (const target of ['https://sso.example.com/.well-known/oauth-authorization-server', 'http://127.0.0.1:8080/token', 'https://[::1]/token', 'https://169.254.169.254/latest', 'http://ok.example.com/token']) {
      await expect(guarded(target)).rejects.toBeInstanceOf(OAuthRefusal);
    }
    expect(fetch).not.toHaveBeenCalled();
    await guarded('https://ok.example.com/.well-known/oauth-authorization-server');
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  test('a redirect from a public address to a private one is not followed', async () => {
    const fetch = vi.fn(async () => new Response(null, { status: 302, headers: { location: 'https://192.168.1.1/admin' } }));
    const guarded = guardedOAuthFetch(remote, { resolve: async () => ['93.184.216.34'], fetch: fetch as unknown as typeof globalThis.fetch });
    await expect(guarded('https://ok.example.com/.well-known/oauth-protected-resource')).rejects.toThrow(/private network/);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  test('a local MCP server may have a local authorization server', async () => {
    const fetch = vi.fn(async () => new Response('{}'));
    await guardedOAuthFetch('http://127.0.0.1:7000/mcp', { fetch: fetch as unknown as typeof globalThis.fetch })('http://127.0.0.1:7001/token');
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(() => checkAuthorizationServer({ serverUrl: 'http://localhost:7000/mcp', authorizationServerUrl: 'http://localhost:7001', metadata: { issuer: 'http://localhost:7001', token_endpoint: 'http://localhost:7001/token' } })).not.toThrow();
  });

  test('a server on a private address gets the same rules for anything off its own host (issue 41 §7)', async () => {
    const fetch = vi.fn(async () => new Response('{}'));
    const resolve = async (host: string) => (host === 'meta.example.com' ? ['::ffff:a9fe:a9fe'] : host === 'lan.example.com' ? ['10.0.0.7'] : ['93.184.216.34']);
    const guarded = guardedOAuthFetch('http://192.168.1.5:7000/mcp', { resolve, fetch: fetch as unknown as typeof globalThis.fetch });
    for (const target of [
      'http://169.254.169.254/latest/meta-data/', // the metadata address
      'https://[::a9fe:a9fe]/', // the same, compatible IPv6 form
      'https://meta.example.com/token', // a name that resolves to it
      'http://login.example.com/register', // plain http elsewhere
      'https://10.0.0.7:9000/register', // another private host
      'https://lan.example.com/register', // a name that resolves to one
    ]) {
      await expect(guarded(target), target).rejects.toBeInstanceOf(OAuthRefusal);
    }
    expect(fetch).not.toHaveBeenCalled();
    await guarded('http://192.168.1.5:7001/token'); // its own host, another port
    await guarded('https://login.example.com/.well-known/oauth-authorization-server'); // https on the internet
    expect(fetch).toHaveBeenCalledTimes(2);
    const metadata = (endpoint: string) => ({ issuer: 'http://192.168.1.5:7001', authorization_endpoint: 'http://192.168.1.5:7001/auth', registration_endpoint: endpoint });
    const check = (endpoint: string) => () => checkAuthorizationServer({ serverUrl: 'http://192.168.1.5:7000/mcp', authorizationServerUrl: 'http://192.168.1.5:7001', metadata: metadata(endpoint) });
    expect(check('http://169.254.169.254/register')).toThrow(/link-local/);
    expect(check('http://collector.example/register')).toThrow(/not https/);
    expect(check('https://10.9.9.9/register')).toThrow(/private network/);
    expect(check('http://192.168.1.5:7001/register')).not.toThrow();
  });

  test('a local server whose metadata names an authorization server on another origin over http: refused, nothing registered', async () => {
    const { server, auth, config } = await hostile({ resource: (metadata) => ({ ...metadata, authorization_servers: ['http://10.0.0.7:9000'] }) });
    await expect(auth.signIn('remote', config, redirect)).rejects.toThrow(/not https|refused/);
    expect(server.registrations).toBe(0);
    await nothingKept();
  });

  test('endpoints named in the metadata of a server on the internet', () => {
    const metadata = (token: string) => ({ issuer: 'https://sso.example.com', authorization_endpoint: 'https://sso.example.com/auth', token_endpoint: token });
    expect(() => checkAuthorizationServer({ serverUrl: remote, authorizationServerUrl: 'https://sso.example.com', metadata: metadata('http://169.254.169.254/token') })).toThrow(OAuthRefusal);
    expect(() => checkAuthorizationServer({ serverUrl: remote, authorizationServerUrl: 'https://sso.example.com', metadata: metadata('https://localhost/token') })).toThrow(/this machine/);
    expect(() => checkAuthorizationServer({ serverUrl: remote, authorizationServerUrl: 'https://sso.example.com', metadata: metadata('https://sso.example.com/token') })).not.toThrow();
  });

  test('what counts as private', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1']) expect(isPrivateAddress(address), address).toBe(false);
  });

  test('a JWT access token for another audience; opaque tokens pass', () => {
    expect(() => checkTokenAudience(fakeJwt({ aud: ['https://a.example/mcp'] }), 'https://b.example/mcp')).toThrow(OAuthRefusal);
    expect(() => checkTokenAudience(fakeJwt({ aud: 'https://b.example/mcp/' }), 'https://b.example/mcp')).not.toThrow();
    expect(() => checkTokenAudience('opaque-token-value', 'https://b.example/mcp')).not.toThrow();
  });
});
