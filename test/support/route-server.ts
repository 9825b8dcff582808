// A route handler of the app served on a loopback port (issue 77): a provider's fake that delivers
// by HTTP (Meta's webhook sender) reaches the real route module through real sockets, its raw
// body and headers as sent. `params` are taken from the path by `match`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;

export async function serveRoute(route: Partial<Record<'GET' | 'POST', Handler>>, match: RegExp): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((incoming, outgoing) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const url = new URL(incoming.url ?? '/', `http://${incoming.headers.host}`);
      const found = match.exec(url.pathname);
      const handler = route[(incoming.method ?? 'GET') as 'GET' | 'POST'];
      if (!found || !handler) return outgoing.writeHead(404).end();
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') headers.set(name, value);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const request = new Request(url, { method: incoming.method, headers, ...(body && { body }) });
      const response = await handler(request, { params: Promise.resolve({ ...found.groups }) });
      outgoing.writeHead(response.status, Object.fromEntries(response.headers.entries())).end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => outgoing.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
