// Sign-in to a remote MCP server against a real authorization server (oidc-provider) in front of
// an SDK-built MCP server that takes only its bearer tokens (issue 30 §1, §5): registration, PKCE,
// the callback's state, tokens sealed at rest, refresh ahead of expiry, a revoked refresh token
// ending in *needs sign-in*, one refresh for two claimants, sign-out revoking.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { getDb } from '@/lib/store/db';
import { readMcpAuth } from '@/lib/store/mcp-tokens-repository';
import { McpAuth, SignInError } from '@/lib/mcp/mcp-auth';
import { McpPool } from '@/lib/mcp/mcp-pool';
import type { McpSettings } from '@/lib/config/mcp-config';
import { consentInBrowserless, startOAuthMcpServer, type OAuthMcpServer } from '../support/oauth-mcp-server';
import { useTempAppDirs } from '../support/temp-app-dirs';

const dirs = useTempAppDirs();
const redirect = 'http://localhost:3999/oauth/callback';
const pools: McpPool[] = [];
let server: OAuthMcpServer;

function settingsFor(url: string): McpSettings {
  return { mcpServers: { remote: { type: 'http', url, headers: {} } }, tools: {}, disabled: [] };
}

async function newPool(url: string, owner = 'test-a'): Promise<McpPool> {
  const pool = new McpPool({ auth: new McpAuth({ defaultRedirectUrl: () => redirect, owner }), backoffMs: [60_000] });
  pools.push(pool);
  await pool.configure(settingsFor(url));
  await pool.settled();
  return pool;
}

async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const stateOf = (pool: McpPool) => pool.status()[0]!;

async function signIn(pool: McpPool): Promise<URL> {
  const url = await pool.signIn('remote', redirect);
  expect(url).not.toBeNull();
  const back = await consentInBrowserless(url!);
  expect(`${back.origin}${back.pathname}`).toBe(redirect);
  await pool.finishSignIn({ state: back.searchParams.get('state')!, code: back.searchParams.get('code')! });
  return new URL(url!);
}

beforeAll(async () => {
  server = await startOAuthMcpServer({ accessTokenTtl: 8 });
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.stop()));
  await (await getDb()).mcpToken.deleteMany({});
});
afterAll(async () => {
  await server.close();
});

describe('signing in to a remote MCP server', () => {
  test('needs sign-in → consent → tools; refreshed ahead of expiry; a revoked refresh token ends in needs sign-in', async () => {
    const pool = await newPool(server.mcpUrl);
    expect(stateOf(pool)).toMatchObject({ state: 'needs_sign_in', signed_in: false, last_error: expect.stringContaining('sign-in') });
    expect(server.registrations).toBe(0); // nothing is registered anywhere until the user asks

    const authorization = await signIn(pool);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(server.mcpUrl);
    expect(authorization.searchParams.get('redirect_uri')).toBe(redirect);
    expect(authorization.searchParams.get('state')?.length).toBeGreaterThanOrEqual(40);
    expect(server.registrations).toBe(1);

    await until(() => stateOf(pool), (status) => status.state === 'ready', 'the server to connect');
    expect(stateOf(pool)).toMatchObject({ signed_in: true, tools: [expect.objectContaining({ model_name: 'remote__whoami' })] });
    const tool = pool.tools().find((candidate) => candidate.definition.name === 'remote__whoami')!;
    const first = await tool.run({}, { signal: new AbortController().signal, callId: 'c1' } as never);
    expect(first).toMatchObject({ isError: false, content: 'signed in as ada' });

    // Sealed at rest: the row holds no token in the clear; the key file is the owner's alone.
    const row = await (await getDb()).mcpToken.findUniqueOrThrow({ where: { serverName: 'remote' } });
    const record = (await readMcpAuth('remote'))!;
    const accessToken = String(record.tokens!.access_token);
    expect(row.tokens!.startsWith('v1:')).toBe(true);
    expect(row.tokens).not.toContain(accessToken.slice(0, 20));
    expect(row.clientInformation).not.toContain(String(record.clientInformation!.client_id));
    expect(fs.statSync(path.join(dirs.dataDir, 'secret.key')).mode & 0o777).toBe(0o600);

    // Ahead of expiry (8 s tokens): a refresh, and calls go on with the new token.
    await until(() => server.tokenRequests.filter((grant) => grant === 'refresh_token').length, (count) => count >= 1, 'a refresh');
    const refreshed = await until(() => readMcpAuth('remote'), (value) => value?.tokens?.access_token !== accessToken, 'new tokens');
    const second = await tool.run({}, { signal: new AbortController().signal, callId: 'c2' } as never);
    expect(second).toMatchObject({ isError: false });
    expect(server.acceptedTokens.at(-1)).toBe(refreshed!.tokens!.access_token);
    expect(stateOf(pool).state).toBe('ready');

    // The refresh token revoked: the next refresh is refused and the server says why.
    await server.revokeRefreshToken(String(refreshed!.tokens!.refresh_token));
    const after = await until(() => stateOf(pool), (status) => status.state === 'needs_sign_in', 'needs sign-in');
    expect(after.last_error).toMatch(/refused the refresh token/);
    expect((await readMcpAuth('remote'))!.tokens).toBeNull();
    expect((await readMcpAuth('remote'))!.needsSignIn).toMatch(/invalid_grant/);
    const refused = await tool.run({}, { signal: new AbortController().signal, callId: 'c3' } as never);
    expect(refused).toMatchObject({ isError: true, content: expect.stringContaining('needs a sign-in') });
  }, 60_000);

  test('a callback with a state never issued, or used once already, is refused and stores nothing', async () => {
    const pool = await newPool(server.mcpUrl);
    await expect(pool.finishSignIn({ state: 'made-up', code: 'x' })).rejects.toMatchObject({ code: 'unknown_state' });
    const url = await pool.signIn('remote', redirect);
    const back = await consentInBrowserless(url!);
    const state = back.searchParams.get('state')!;
    await expect(pool.finishSignIn({ state: `${state}x`, code: back.searchParams.get('code')! })).rejects.toBeInstanceOf(SignInError);
    expect((await readMcpAuth('remote'))!.tokens).toBeNull();
    await pool.finishSignIn({ state, code: back.searchParams.get('code')! });
    expect((await readMcpAuth('remote'))!.tokens).not.toBeNull();
    await expect(pool.finishSignIn({ state, code: back.searchParams.get('code')! })).rejects.toMatchObject({ code: 'unknown_state' });
  }, 30_000);

  test('a sign-in whose PKCE verifier is gone is refused; the code alone gets no token', async () => {
    const pool = await newPool(server.mcpUrl);
    const url = await pool.signIn('remote', redirect);
    const back = await consentInBrowserless(url!);
    await (await getDb()).mcpToken.update({ where: { serverName: 'remote' }, data: { codeVerifier: null } });
    const before = server.tokenRequests.length;
    await expect(pool.finishSignIn({ state: back.searchParams.get('state')!, code: back.searchParams.get('code')! })).rejects.toThrow(/PKCE verifier is missing/);
    expect(server.tokenRequests.length).toBe(before);
    expect((await readMcpAuth('remote'))!.tokens).toBeNull();
    expect(stateOf(pool).state).toBe('needs_sign_in');
  }, 30_000);

  test('the authorization server saying no (access_denied) leaves the reason and no tokens', async () => {
    const pool = await newPool(server.mcpUrl);
    const url = new URL((await pool.signIn('remote', redirect))!);
    await expect(pool.finishSignIn({ state: url.searchParams.get('state')!, error: 'access_denied', errorDescription: 'End-User aborted interaction' })).rejects.toMatchObject({ code: 'refused' });
    expect((await readMcpAuth('remote'))!.needsSignIn).toMatch(/access_denied/);
  }, 30_000);

  test('two processes due to refresh at once: one refreshes, the other finds it done', async () => {
    const pool = await newPool(server.mcpUrl);
    await signIn(pool);
    await pool.stop(); // only the two claimants below refresh
    const config = settingsFor(server.mcpUrl).mcpServers.remote as never;
    const a = new McpAuth({ defaultRedirectUrl: () => redirect, owner: 'process-a' });
    const b = new McpAuth({ defaultRedirectUrl: () => redirect, owner: 'process-b' });
    const before = server.tokenRequests.filter((grant) => grant === 'refresh_token').length;
    const outcomes = await Promise.all([a.refresh('remote', config, 60_000), b.refresh('remote', config, 60_000)]);
    expect(outcomes.filter((outcome) => outcome === 'refreshed')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'claimed_elsewhere' || outcome === 'not_due')).toHaveLength(1);
    expect(server.tokenRequests.filter((grant) => grant === 'refresh_token').length - before).toBe(1);
    // Later, the one that lost finds fresh tokens and does not refresh again.
    expect(await b.refresh('remote', config, 1_000)).toBe('not_due');
  }, 30_000);

  test('a restart connects with the stored tokens: no second sign-in, no second registration', async () => {
    const first = await newPool(server.mcpUrl);
    await signIn(first);
    await until(() => stateOf(first), (status) => status.state === 'ready', 'the first connection');
    const registrations = server.registrations;
    await first.stop();
    const again = await newPool(server.mcpUrl, 'test-b'); // a new process: a new pool and McpAuth, the same store
    expect(stateOf(again)).toMatchObject({ state: 'ready', signed_in: true });
    expect(server.registrations).toBe(registrations);
  }, 30_000);

  test('sign out revokes at the authorization server and forgets', async () => {
    const pool = await newPool(server.mcpUrl);
    await signIn(pool);
    const refreshToken = String((await readMcpAuth('remote'))!.tokens!.refresh_token);
    expect(await pool.signOut('remote')).toEqual({ revoked: true, error: null });
    expect(await server.provider.RefreshToken.find(refreshToken)).toBeUndefined();
    expect(await readMcpAuth('remote')).toBeNull();
    await until(() => stateOf(pool), (status) => status.state === 'needs_sign_in', 'needs sign-in after sign-out');
  }, 30_000);
});
