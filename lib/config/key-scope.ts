// Where a key may go. A key is sent only to the endpoint it was saved with (compared by origin);
// the key in ANTHROPIC_API_KEY only to Anthropic's own API or to the base URL named beside it in
// the same environment (ANTHROPIC_BASE_URL). Anything else needs the key typed again, so no API
// caller, imported file or settings change can point a saved or environment key at a listener.
export const ANTHROPIC_API_ORIGIN = 'https://api.anthropic.com';

type KeyEnvironment = Partial<Record<'ANTHROPIC_API_KEY' | 'ANTHROPIC_BASE_URL', string>> & Record<string, string | undefined>;

/** The origin of an endpoint URL (scheme, host, port), or undefined for none or a bad URL. */
export function endpointOrigin(endpoint: string | undefined): string | undefined {
  if (!endpoint) return undefined;
  try {
    return new URL(endpoint).origin;
  } catch {
    return undefined;
  }
}

/** Whether a key saved for `savedEndpoint` may be used for `endpoint` (no endpoint: the provider's default). */
export function sameKeyScope(savedEndpoint: string | undefined, endpoint: string | undefined): boolean {
  if (!savedEndpoint || !endpoint) return !savedEndpoint && !endpoint;
  const saved = endpointOrigin(savedEndpoint);
  return saved !== undefined && saved === endpointOrigin(endpoint);
}

/** The endpoints ANTHROPIC_API_KEY may be sent to. */
export function environmentKeyOrigins(env: KeyEnvironment = process.env): string[] {
  const named = endpointOrigin(env.ANTHROPIC_BASE_URL);
  return named ? [ANTHROPIC_API_ORIGIN, named] : [ANTHROPIC_API_ORIGIN];
}

/** ANTHROPIC_API_KEY when `baseURL` (none: the SDK's default) is one it may go to; otherwise undefined. */
export function environmentAnthropicKey(baseURL: string | undefined, env: KeyEnvironment = process.env): string | undefined {
  const key = env.ANTHROPIC_API_KEY;
  if (!key) return undefined;
  if (!baseURL) return key;
  const origin = endpointOrigin(baseURL);
  return origin && environmentKeyOrigins(env).includes(origin) ? key : undefined;
}
