// One resolver for every outbound request whose target a guard judges (issue 41 §14): the host is
// resolved once, the guard judges those addresses, and the connection goes to exactly them — a
// second lookup by fetch could answer otherwise (DNS rebinding: a public address for the check, the
// metadata address for the connection). TLS still verifies the certificate against the host name.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { RequestInit as UndiciRequestInit } from 'undici';

/** Host name → its addresses; tests pass a resolver of their own (nothing is dialled to decide). */
export type Resolve = (host: string) => Promise<string[]>;

export const systemResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

const bare = (host: string) => host.replace(/^\[|\]$/g, '');

/** The addresses a URL's host stands for: an address literal is itself, a name is resolved once. */
export async function resolveHost(host: string, resolve: Resolve = systemResolve): Promise<string[]> {
  const plain = bare(host);
  if (isIP(plain)) return [plain];
  const addresses = await resolve(plain);
  if (addresses.length === 0) throw new Error(`${plain} resolves to no address`);
  return addresses;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A lookup that answers with the addresses already judged, whatever it is asked. */
export function pinnedLookup(addresses: readonly string[]) {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_host: string, options: LookupOptions, callback: LookupCallback) => {
    if (options.all) callback(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  };
}

/** fetch that connects only to `addresses` (judged by the caller); redirects are never followed here. */
export async function fetchPinned(url: URL, init: RequestInit | undefined, addresses: readonly string[]): Promise<Response> {
  // undici (~18 MiB) is loaded with the first guarded request, not with the app (issue 43 §4).
  const { Agent, fetch: undiciFetch } = await import('undici');
  const agent = new Agent({ connect: { lookup: pinnedLookup(addresses) } });
  try {
    const answer = await undiciFetch(url, { ...(init as UndiciRequestInit), redirect: 'manual', dispatcher: agent });
    // The platform's own Response (callers, the MCP SDK among them, test `instanceof Response`).
    const nullBody = [101, 204, 205, 304].includes(answer.status);
    const response = new Response(nullBody ? null : (answer.body as ReadableStream<Uint8Array> | null), { status: answer.status, statusText: answer.statusText, headers: answer.headers as unknown as Headers });
    Object.defineProperty(response, 'url', { value: answer.url });
    return response;
  } finally {
    // Closes once the answer has been read: close() waits for the requests it carries.
    void agent.close().catch(() => undefined);
  }
}
