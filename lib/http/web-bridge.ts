// A route handler written for Web Requests, run straight from Node's HTTP server (issue 64 §2):
// the OpenAI door's chat completions skip Next's router, which cost its first token ~4 ms a
// request. The request has passed the server's guard and entry decision first, as every request
// does; its body is read (up to a cap above the handler's own limit) and the answer streams out
// unbuffered, a chunk as it comes. A client that goes away cancels the answer's stream, as Next
// does, so the door stops listening at once.
import type { IncomingMessage, ServerResponse } from 'node:http';

export type WebHandler = (request: Request) => Promise<Response>;

/**
 * The body, read whole up to `max` bytes and one more: a longer one is passed cut there, so the
 * handler's own limit refuses it in its own words, and the rest is read and dropped (the connection
 * stays usable, as with Next).
 */
async function readBody(request: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    if (size > max) continue; // drained, not kept
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  const whole = Buffer.concat(chunks);
  return whole.length > max + 1 ? whole.subarray(0, max + 1) : whole;
}

/** `maxBodyBytes`: more than the handler accepts (it refuses what is longer). */
export async function serveWebHandler(request: IncomingMessage, response: ServerResponse, handler: WebHandler, maxBodyBytes = 8 * 1024 * 1024): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const method = request.method ?? 'GET';
  const body = method !== 'GET' && method !== 'HEAD' ? await readBody(request, maxBodyBytes) : null;
  const answer = await handler(new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url ?? '/'}`, { method, headers, ...(body?.length && { body: new Uint8Array(body) }) }));
  const out: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  response.writeHead(answer.status, out);
  if (!answer.body) return void response.end();
  const reader = answer.body.getReader();
  response.on('close', () => void (response.writableFinished || reader.cancel().catch(() => undefined)));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (done) break;
    response.write(value);
  }
  response.end();
}
