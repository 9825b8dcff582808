// The HTTP capability (tool.http, ARCHITECTURE §13): requests to the hosts its graph node allows,
// with the node's methods, time limit and size cap. Two tools, so the approval stays a property of
// the tool: `http_get` (GET and HEAD, no approval) and `http_request` (any other allowed method:
// a person approves each call). Redirects are not followed (the model sees where they point and
// may ask again, within the same allow-list); nothing is sent to a host that is not listed.
import { isIP } from 'node:net';
import { z } from 'zod';
import { isLinkLocalAddress } from '@/lib/security/network-address';
import { fetchPinned, resolveHost } from '@/lib/security/pinned-fetch';
import type { HttpConfig } from '@/lib/tools/tool-node-configs';
import { builtinTool, errorOutcome, type Tool, type ToolOutcome, type ToolRunContext } from './tool-types';
import { errorText } from '@/lib/errors/error-text';


const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 256 * 1024;
const READ_METHODS = ['GET', 'HEAD'];
/** Headers the model may not set: the connection's own, and credentials it has no business choosing. */
const FORBIDDEN_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'upgrade', 'proxy-authorization', 'te', 'trailer', 'keep-alive']);

/** Hosts the node allows: its list, plus the host of the seed's single `url`. Lower case, with the port when given. */
export function allowedHosts(config: HttpConfig): Set<string> {
  const hosts = new Set((config.allowed_hosts ?? []).map((host) => host.toLowerCase()));
  if (config.url) hosts.add(new URL(config.url).host.toLowerCase());
  return hosts;
}

/** Why this URL may not be requested, or null. A listed host without a port means its default port. */
export function refuseUrl(raw: string, config: HttpConfig): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs (not ${url.protocol})`;
  if (url.username || url.password) return 'credentials in the URL are not sent';
  const hosts = allowedHosts(config);
  if (!hosts.has(url.host.toLowerCase())) return `${url.host} is not an allowed host (allowed: ${[...hosts].sort().join(', ') || 'none'})`;
  return null;
}

const argsSchema = (methods: readonly string[]) =>
  z
    .object({
      url: z.string().min(1).max(4_000).describe('The full URL, on an allowed host.'),
      method: z.enum(methods as [string, ...string[]]).optional().describe(`One of ${methods.join(', ')}.`),
      headers: z.record(z.string().max(200), z.string().max(8_000)).optional().describe('Request headers.'),
      body: z.string().max(1_000_000).optional().describe('The request body (text).'),
    })
    .strict();
type HttpArgs = z.infer<ReturnType<typeof argsSchema>>;

async function request(args: HttpArgs, config: HttpConfig, context: ToolRunContext): Promise<ToolOutcome> {
  const refusal = refuseUrl(args.url, config);
  if (refusal) return errorOutcome(`Refused: ${refusal}.`);
  const method = args.method ?? 'GET';
  const headers = Object.fromEntries(Object.entries(args.headers ?? {}).filter(([name]) => !FORBIDDEN_HEADERS.has(name.toLowerCase())));
  const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = config.max_bytes ?? DEFAULT_MAX_BYTES;
  // One controller for the time limit and the call's cancel, its listener removed at the end — not
  // AbortSignal.any, which in Node 20 keeps a composite signal alive once fetch listens to it
  // (model-call.ts learned that from heap snapshots).
  const controller = new AbortController();
  const timeout = { aborted: false };
  const cancel = () => controller.abort();
  const timer = setTimeout(() => {
    timeout.aborted = true;
    controller.abort();
  }, timeoutMs);
  if (context.signal.aborted) controller.abort();
  else context.signal.addEventListener('abort', cancel, { once: true });
  try {
    return await fetchCapped({ args, method, headers, signal: controller.signal, timeout, timeoutMs, maxBytes, cancelled: () => context.signal.aborted });
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', cancel);
  }
}

/** The request and its answer read up to `maxBytes`, as the model's result. */
async function fetchCapped(input: {
  args: HttpArgs;
  method: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  timeout: { aborted: boolean };
  timeoutMs: number;
  maxBytes: number;
  cancelled: () => boolean;
}): Promise<ToolOutcome> {
  const { args, method, headers, signal, timeout, timeoutMs, maxBytes } = input;
  let response: Response;
  try {
    // Resolved once; a name that resolves to a link-local (cloud metadata) address is refused, and
    // the connection goes to the addresses judged (no second lookup for DNS rebinding to change).
    const url = new URL(args.url);
    const addresses = await resolveHost(url.hostname);
    const metadata = isIP(url.hostname.replace(/^\[|\]$/g, '')) ? undefined : addresses.find(isLinkLocalAddress);
    if (metadata) return errorOutcome(`Refused: ${url.hostname} resolves to a link-local (cloud metadata) address (${metadata}).`);
    response = await fetchPinned(url, { method, headers, body: READ_METHODS.includes(method) ? undefined : args.body, signal }, addresses);
  } catch (error) {
    if (timeout.aborted) return errorOutcome(`No answer from ${new URL(args.url).host} within ${timeoutMs} ms.`, { timedOut: true });
    if (input.cancelled()) return errorOutcome('Cancelled.', { cancelled: true });
    return errorOutcome(`The request failed: ${errorText(error)}`);
  }
  // The body, up to the cap: a server that sends more is cut off, not buffered.
  const chunks: Uint8Array[] = [];
  let received = 0;
  let dropped = 0;
  const reader = response.body?.getReader();
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - received;
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, Math.max(0, room)));
        received += Math.max(0, room);
        dropped += value.byteLength - Math.max(0, room);
        await reader.cancel();
        break;
      }
      chunks.push(value);
      received += value.byteLength;
    }
  } catch (error) {
    if (timeout.aborted) return errorOutcome(`The answer from ${new URL(args.url).host} did not finish within ${timeoutMs} ms.`, { timedOut: true });
    return errorOutcome(`Reading the answer failed: ${errorText(error)}`);
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  const location = response.headers.get('location');
  const lines = [
    `HTTP ${response.status} ${response.statusText}`.trim(),
    `content-type: ${response.headers.get('content-type') ?? '(none)'}`,
    ...(location ? [`location: ${location} (redirects are not followed)`] : []),
    ...(dropped > 0 ? [`[the answer was cut at ${maxBytes} bytes; ${dropped}+ more were not read]`] : []),
    '',
    text,
  ];
  // What the server sent is its own text, not the user's: untrusted unless the user trusts the host (§20).
  return { isError: response.status >= 400, content: lines.join('\n'), droppedBytes: dropped || undefined, untrusted: { kind: 'host', host: new URL(args.url).host.toLowerCase() } };
}

/** The node's tools: `http_get` when it allows GET or HEAD, `http_request` when it allows anything else. */
export function httpTools(config: HttpConfig): Tool[] {
  const methods = config.methods ?? (config.method ? [config.method] : ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);
  const reads = methods.filter((method) => READ_METHODS.includes(method));
  const writes = methods.filter((method) => !READ_METHODS.includes(method));
  const hosts = [...allowedHosts(config)].sort().join(', ');
  const tools: Tool[] = [];
  if (reads.length > 0) {
    tools.push(
      builtinTool({
        name: 'http_get',
        traits: ['sends_out'],
        description: `Fetch a URL (${reads.join(' or ')}) from an allowed host: ${hosts}. Returns the status, content type and body (cut at ${config.max_bytes ?? DEFAULT_MAX_BYTES} bytes).`,
        args: argsSchema(reads),
        // A GET carries data too: in its path, query, host name and headers.
        sendsOut: () => true,
        describeCall: (args) => `${args.method ?? 'GET'} ${args.url}`,
        run: (args, context) => request(args, config, context),
      }) as Tool,
    );
  }
  if (writes.length > 0) {
    tools.push(
      builtinTool({
        name: 'http_request',
        traits: ['sends_out'],
        description: `Send an HTTP ${writes.join('/')} request to an allowed host: ${hosts}. The user approves each call.`,
        args: argsSchema(writes),
        approval: 'required',
        sendsOut: () => true,
        describeCall: (args) => `${args.method ?? writes[0]} ${args.url}`,
        run: (args, context) => request({ ...args, method: args.method ?? writes[0] }, config, context),
      }) as Tool,
    );
  }
  return tools;
}
