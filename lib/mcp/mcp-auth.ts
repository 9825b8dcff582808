// Sign-in, refresh and sign-out for the user's remote MCP servers (issue 30), on the SDK's own
// `auth()`. Sign in: the browser is sent to the authorization URL the SDK builds (discovery,
// registration, PKCE S256, `state`, the RFC 8707 resource); the callback finds the server by its
// state, and the SDK exchanges the code with the kept verifier. Refresh: ahead of expiry, claimed in
// the store so one process of a cluster refreshes; a refresh that fails leaves the server in *needs
// sign-in* with the reason. Sign out: the tokens are revoked where the server offers RFC 7009, and
// forgotten.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  claimMcpRefresh,
  deleteMcpAuth,
  endMcpSignIn,
  ensureMcpAuth,
  findMcpSignIn,
  invalidateMcpAuth,
  markMcpNeedsSignIn,
  readMcpAuth,
  releaseMcpRefresh,
} from '@/lib/store/mcp-tokens-repository';
import { hostname } from 'node:os';
import { readEnv } from '@/lib/config/env';
import type { McpHttpConfig } from '@/lib/config/mcp-config';
import { hashState, McpOAuthProvider, NeedsSignIn } from './mcp-oauth-provider';
import { guardedOAuthFetch, OAuthRefusal } from './oauth-guard';
import { errorText } from '@/lib/errors/error-text';

/** The SDK's OAuth client, loaded with the first sign-in or refresh rather than at start (issue 43 §4). */
const clientAuth = () => import('@modelcontextprotocol/sdk/client/auth.js');


export class SignInError extends Error {
  constructor(
    readonly code: 'unknown_state' | 'refused' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'SignInError';
  }
}

export interface McpAuthOptions {
  /** Where the authorization server sends the browser back, when no sign-in says otherwise. */
  defaultRedirectUrl: () => string;
  /** This process's name in refresh claims. */
  owner: string;
  now?: () => number;
  /** For tests: how host names resolve (the guard refuses private addresses). */
  resolve?: (host: string) => Promise<string[]>;
}

const reasonOf = (error: unknown) => (errorText(error)).slice(0, 500);

export class McpAuth {
  /** The scope a server last asked for (a 403 insufficient_scope mid-call), for the next sign-in. */
  private readonly scopeHints = new Map<string, string>();

  constructor(private readonly options: McpAuthOptions) {}

  /**
   * What the server's 401 says (RFC 9728 §5.1): where its protected-resource metadata is, and the
   * scope it wants. Asked with an unauthenticated initialize, as a connection would.
   */
  private async challenge(config: McpHttpConfig): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
    try {
      const { LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/sdk/types.js');
      const response = await this.fetchFor(config)(config.url, {
        method: 'POST',
        headers: { ...config.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'agentcsd', version: '0.1.0' } } }),
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.status !== 401 && response.status !== 403) return {};
      const { resourceMetadataUrl, scope } = (await clientAuth()).extractWWWAuthenticateParams(response);
      return { ...(resourceMetadataUrl && { resourceMetadataUrl }), ...(scope && { scope }) };
    } catch {
      return {}; // discovery falls back to the well-known locations
    }
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  fetchFor(config: McpHttpConfig): FetchLike {
    return guardedOAuthFetch(config.url, { resolve: this.options.resolve });
  }

  /** The provider a connection uses: background mode, the redirect its client was registered with. */
  async backgroundProvider(name: string, config: McpHttpConfig): Promise<McpOAuthProvider> {
    await ensureMcpAuth(name, config.url);
    const record = await readMcpAuth(name);
    const registered = (record?.clientInformation?.redirect_uris as string[] | undefined)?.[0];
    return this.provider(name, config, { interactive: false, redirectUrl: record?.pendingRedirect ?? registered ?? this.options.defaultRedirectUrl() });
  }

  private provider(name: string, config: McpHttpConfig, mode: { interactive: boolean; redirectUrl: string }): McpOAuthProvider {
    return new McpOAuthProvider({
      serverName: name,
      serverUrl: config.url,
      redirectUrl: mode.redirectUrl,
      interactive: mode.interactive,
      onScopeHint: (scope) => this.scopeHints.set(name, scope),
      staticClient: config.oauth?.client_id ? { client_id: config.oauth.client_id, ...(config.oauth.client_secret && { client_secret: config.oauth.client_secret }) } : undefined,
      clientMetadataUrl: config.oauth?.client_metadata_url,
      scope: config.oauth?.scope,
      now: this.options.now,
    });
  }

  /** Starts a sign-in: the URL to open, or null when stored credentials were enough. */
  async signIn(name: string, config: McpHttpConfig, redirectUrl: string): Promise<string | null> {
    await ensureMcpAuth(name, config.url);
    await invalidateMcpAuth(name, 'tokens');
    const record = await readMcpAuth(name);
    const registered = record?.clientInformation?.redirect_uris as string[] | undefined;
    if (registered && !registered.includes(redirectUrl)) await invalidateMcpAuth(name, 'client');
    const provider = this.provider(name, config, { interactive: true, redirectUrl });
    try {
      const challenge = await this.challenge(config);
      const scope = this.scopeHints.get(name) ?? challenge.scope ?? config.oauth?.scope;
      const result = await (await clientAuth()).auth(provider, { serverUrl: config.url, fetchFn: this.fetchFor(config), ...(challenge.resourceMetadataUrl && { resourceMetadataUrl: challenge.resourceMetadataUrl }), ...(scope && { scope }) });
      this.scopeHints.delete(name);
      if (result === 'AUTHORIZED') return null;
      if (!provider.authorizationUrl) throw new Error('the SDK asked for a redirect but gave no URL');
      return provider.authorizationUrl.href;
    } catch (error) {
      await endMcpSignIn(name);
      await markMcpNeedsSignIn(name, `sign-in failed: ${reasonOf(error)}`);
      throw new SignInError(error instanceof OAuthRefusal ? 'refused' : 'failed', `Sign-in to "${name}" failed: ${reasonOf(error)}`);
    }
  }

  /** The callback: the server whose sign-in this state belongs to, signed in with the code. */
  async finishSignIn(input: { state: string; code?: string; error?: string; errorDescription?: string }, configOf: (name: string) => McpHttpConfig | null): Promise<string> {
    const name = await findMcpSignIn(hashState(input.state), new Date(this.now()));
    if (!name) throw new SignInError('unknown_state', 'This sign-in is unknown or has expired (its state does not match one started here). Start again from Settings › MCP servers.');
    const config = configOf(name);
    const record = await readMcpAuth(name);
    await endMcpSignIn(name);
    if (!config || !record?.pendingRedirect) throw new SignInError('unknown_state', `"${name}" is no longer a remote MCP server here.`);
    if (input.error || !input.code) {
      const reason = `the authorization server said ${input.error ?? 'no code'}${input.errorDescription ? `: ${input.errorDescription}` : ''}`;
      await markMcpNeedsSignIn(name, reason);
      throw new SignInError('refused', `Sign-in to "${name}" did not complete: ${reason}`);
    }
    // The verifier was cleared with the state above; the provider reads it from the record.
    const provider = this.provider(name, config, { interactive: true, redirectUrl: record.pendingRedirect });
    provider.codeVerifier = async () => {
      if (!record.codeVerifier) throw new NeedsSignIn('no sign-in is under way for this server (the PKCE verifier is missing); start again from Settings');
      return record.codeVerifier;
    };
    try {
      await (await clientAuth()).auth(provider, { serverUrl: config.url, authorizationCode: input.code, fetchFn: this.fetchFor(config) });
      return name;
    } catch (error) {
      await markMcpNeedsSignIn(name, `sign-in failed: ${reasonOf(error)}`);
      throw new SignInError(error instanceof OAuthRefusal ? 'refused' : 'failed', `Sign-in to "${name}" failed: ${reasonOf(error)}`);
    }
  }

  /**
   * Refreshes the access token if it is due and this process wins the claim. Returns what happened;
   * a refresh the authorization server refuses leaves the server in needs sign-in (tokens dropped).
   */
  async refresh(name: string, config: McpHttpConfig, dueWithinMs: number): Promise<'refreshed' | 'not_due' | 'claimed_elsewhere' | 'needs_sign_in'> {
    const now = this.now();
    if (!(await claimMcpRefresh(name, this.options.owner, new Date(now), new Date(now + 60_000)))) return 'claimed_elsewhere';
    try {
      const record = await readMcpAuth(name);
      if (!record?.tokens) return 'needs_sign_in';
      if (record.expiresAt && record.expiresAt.getTime() - now > dueWithinMs) return 'not_due'; // another process was first
      if (!record.tokens.refresh_token) {
        await markMcpNeedsSignIn(name, 'the access token expires and the server gave no refresh token; sign in again');
        return 'needs_sign_in';
      }
      const provider = await this.backgroundProvider(name, config);
      await (await clientAuth()).auth(provider, { serverUrl: config.url, fetchFn: this.fetchFor(config) });
      return 'refreshed';
    } catch (error) {
      await markMcpNeedsSignIn(name, error instanceof NeedsSignIn ? error.reason : `refresh failed: ${reasonOf(error)}`, { dropTokens: error instanceof NeedsSignIn });
      return 'needs_sign_in';
    } finally {
      await releaseMcpRefresh(name, this.options.owner);
    }
  }

  async expiresAt(name: string): Promise<Date | null> {
    return (await readMcpAuth(name))?.expiresAt ?? null;
  }

  async hasTokens(name: string): Promise<boolean> {
    return Boolean((await readMcpAuth(name))?.tokens);
  }

  async needsSignInReason(name: string): Promise<string | null> {
    return (await readMcpAuth(name))?.needsSignIn ?? null;
  }

  async markNeedsSignIn(name: string, reason: string): Promise<void> {
    await markMcpNeedsSignIn(name, reason);
  }

  /** Revokes (RFC 7009, where offered) and forgets. Revocation failing does not keep the tokens. */
  async signOut(name: string, config: McpHttpConfig | null): Promise<{ revoked: boolean; error: string | null }> {
    const record = await readMcpAuth(name);
    await deleteMcpAuth(name);
    const endpoint = (record?.discovery?.authorizationServerMetadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
    if (!record?.tokens || !endpoint || !config) return { revoked: false, error: endpoint ? null : 'the server offers no revocation' };
    const client = (record.clientInformation ?? (config.oauth?.client_id ? config.oauth : null)) as { client_id?: string; client_secret?: string } | null;
    const fetchFn = this.fetchFor(config);
    try {
      // Revoking the refresh token ends the grant; an access token is revoked only when there is
      // none (a server may not revoke self-contained access tokens: RFC 7009 unsupported_token_type).
      const refreshToken = record.tokens.refresh_token;
      const pairs = typeof refreshToken === 'string' ? ([[refreshToken, 'refresh_token']] as const) : ([[record.tokens.access_token, 'access_token']] as const);
      for (const [token, hint] of pairs) {
        if (typeof token !== 'string') continue;
        const body = new URLSearchParams({ token, token_type_hint: hint });
        const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
        if (client?.client_secret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id ?? '')}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
        else if (client?.client_id) body.set('client_id', client.client_id);
        const response = await fetchFn(endpoint, { method: 'POST', headers, body });
        if (!response.ok) return { revoked: false, error: `revocation answered ${response.status}` };
      }
      return { revoked: true, error: null };
    } catch (error) {
      return { revoked: false, error: reasonOf(error) };
    }
  }
}

/** The app's own: sign-ins of remote MCP servers come back to its /oauth/callback. */
export function appMcpAuth(): McpAuth {
  const env = readEnv();
  return new McpAuth({
    defaultRedirectUrl: () => `http://localhost:${env.PORT}/oauth/callback`,
    owner: env.AGENTCSD_EXECUTOR_ID ?? `${hostname()}:${process.pid}`,
  });
}
