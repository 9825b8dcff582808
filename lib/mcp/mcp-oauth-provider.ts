// The SDK's OAuthClientProvider for one remote MCP server, kept in the store (issue 30). The SDK
// runs the flow — discovery, registration, PKCE, the code exchange, refresh — and this class only
// answers where things are kept and checks what the server's documents say before keeping it.
// Two modes: *interactive* (the user pressed Sign in: the authorization URL is handed to the
// browser, the state and verifier are kept for the callback) and *background* (a connection or a
// refresh: a sign-in it cannot do becomes NeedsSignIn with the reason, and touches nothing of a
// sign-in under way).
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  beginMcpSignIn,
  invalidateMcpAuth,
  readMcpAuth,
  saveMcpClientInformation,
  saveMcpCodeVerifier,
  saveMcpDiscovery,
  saveMcpTokens,
} from '@/lib/store/mcp-tokens-repository';
import { checkAuthorizationServer, checkRegistration, checkTokenAudience } from './oauth-guard';
import { sha256Hex } from '@/lib/security/digest';

/** How long a sign-in started in Settings may take to come back. */
export const SIGN_IN_VALID_MS = 10 * 60_000;

export class NeedsSignIn extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'NeedsSignIn';
  }
}

export const hashState = (state: string) => sha256Hex(state);

/** A client id and secret the user pasted, for servers that offer no registration. */
export interface StaticClient {
  client_id: string;
  client_secret?: string;
}

export interface McpOAuthProviderOptions {
  serverName: string;
  serverUrl: string;
  redirectUrl: string;
  interactive: boolean;
  staticClient?: StaticClient;
  /** An https URL where our Client ID Metadata Document is published, when there is one. */
  clientMetadataUrl?: string;
  scope?: string;
  now?: () => number;
  /** Background mode: the scope a server asked for when it wanted a (new) sign-in. */
  onScopeHint?: (scope: string) => void;
}

export class McpOAuthProvider implements OAuthClientProvider {
  /** Where the browser goes to sign in (interactive mode), once the SDK has built it. */
  authorizationUrl: URL | null = null;
  private invalidated: string | null = null;
  readonly clientMetadataUrl?: string;

  constructor(private readonly options: McpOAuthProviderOptions) {
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'AgentCSD',
      client_uri: 'https://github.com/agentcsd/agentcsd',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.options.staticClient?.client_secret ? 'client_secret_basic' : 'none',
      ...(this.options.scope && { scope: this.options.scope }),
    };
  }

  async state(): Promise<string> {
    const state = randomBytes(32).toString('base64url');
    if (this.options.interactive) {
      await beginMcpSignIn(this.options.serverName, { stateHash: hashState(state), redirect: this.options.redirectUrl, expiresAt: new Date(this.now() + SIGN_IN_VALID_MS) });
    }
    return state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = (await readMcpAuth(this.options.serverName))?.clientInformation;
    if (stored) return stored as OAuthClientInformationMixed;
    return this.options.staticClient;
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    checkRegistration(information as Record<string, unknown>, this.options.redirectUrl);
    await saveMcpClientInformation(this.options.serverName, information as Record<string, unknown>);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return ((await readMcpAuth(this.options.serverName))?.tokens ?? undefined) as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const record = await readMcpAuth(this.options.serverName);
    const resource = (record?.discovery?.resourceMetadata as { resource?: string } | undefined)?.resource ?? this.options.serverUrl;
    checkTokenAudience(tokens.access_token, resource);
    const expiresAt = typeof tokens.expires_in === 'number' ? new Date(this.now() + tokens.expires_in * 1000) : null;
    // A refresh answer without a refresh token keeps the one we had (RFC 6749 §6).
    const refresh = tokens.refresh_token ?? (record?.tokens?.refresh_token as string | undefined);
    await saveMcpTokens(this.options.serverName, { ...tokens, ...(refresh && { refresh_token: refresh }) }, expiresAt);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (!this.options.interactive) {
      const scope = authorizationUrl.searchParams.get('scope');
      if (scope) this.options.onScopeHint?.(scope);
      throw new NeedsSignIn(
        this.invalidated === 'tokens'
          ? 'the authorization server refused the refresh token (invalid_grant); sign in again'
          : this.invalidated === 'all' || this.invalidated === 'client'
            ? 'the authorization server no longer knows this app (invalid_client); sign in again'
            : 'the server asks for a sign-in',
      );
    }
    this.authorizationUrl = authorizationUrl;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    // A background attempt never replaces the verifier of a sign-in the user has under way.
    if (this.options.interactive) await saveMcpCodeVerifier(this.options.serverName, codeVerifier);
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await readMcpAuth(this.options.serverName))?.codeVerifier;
    if (!verifier) throw new NeedsSignIn('no sign-in is under way for this server (the PKCE verifier is missing); start again from Settings');
    return verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    this.invalidated = scope;
    if (scope === 'verifier' && !this.options.interactive) return;
    await invalidateMcpAuth(this.options.serverName, scope);
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    checkAuthorizationServer({
      serverUrl: this.options.serverUrl,
      authorizationServerUrl: state.authorizationServerUrl,
      metadata: state.authorizationServerMetadata as Record<string, unknown> | undefined,
    });
    await saveMcpDiscovery(this.options.serverName, state as unknown as Record<string, unknown>);
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return ((await readMcpAuth(this.options.serverName))?.discovery ?? undefined) as OAuthDiscoveryState | undefined;
  }
}
