// Raw HTTP/1.1 over TCP: sends header values exactly as given (empty Host, non-ASCII, commas,
// duplicates), which Node's http client and browsers would refuse or normalise.
import net from 'node:net';

export interface RawResponse {
  status: number;
  head: string;
  body: string;
}

export function rawRequest(input: {
  port: number;
  method: string;
  path: string;
  headers: [string, string][];
  body?: string;
  /** Sent instead of `METHOD path HTTP/1.1`, byte for byte. */
  requestLine?: string;
  timeoutMs?: number;
}): Promise<RawResponse> {
  const body = input.body === undefined ? undefined : Buffer.from(input.body);
  const lines = [input.requestLine ?? `${input.method} ${input.path} HTTP/1.1`, ...input.headers.map(([name, value]) => `${name}: ${value}`)];
  if (body) lines.push(`Content-Length: ${body.length}`);
  if (!input.headers.some(([name]) => name.toLowerCase() === 'connection')) lines.push('Connection: close');
  const request = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), body ?? Buffer.alloc(0)]);

  return new Promise((resolve, reject) => {
    const socket = net.connect(input.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const head = end === -1 ? text : text.slice(0, end);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, body: end === -1 ? '' : text.slice(end + 4) });
    };
    socket.setTimeout(input.timeoutMs ?? 10_000, () => socket.destroy(new Error(`no answer to ${input.method} ${input.path}`)));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // A switched protocol never ends by itself: its head is all there is to read.
      if (Buffer.concat(chunks).toString('latin1').startsWith('HTTP/1.1 101') && Buffer.concat(chunks).includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('close', finish);
    socket.on('error', (error) => (chunks.length > 0 ? finish() : reject(error)));
    socket.write(request);
  });
}

/** The request that opens a Socket.IO connection over WebSocket. */
export function socketHandshake(headers: [string, string][]): { method: string; path: string; headers: [string, string][] } {
  return {
    method: 'GET',
    path: '/socket.io/?EIO=4&transport=websocket',
    headers: [...headers, ['Upgrade', 'websocket'], ['Connection', 'Upgrade'], ['Sec-WebSocket-Version', '13'], ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ==']],
  };
}
