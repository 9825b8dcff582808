// An OTLP/HTTP trace receiver on loopback (issue 65), as a collector answers: POST /v1/traces with
// `application/x-protobuf` or `application/json`, 200 and an empty ExportTraceServiceResponse.
// Spans are decoded into one shape whichever way they came. The exporters' package no longer ships
// the .proto files, so protobuf is read from the wire by opentelemetry-proto's field numbers
// (trace/v1/trace.proto, common/v1/common.proto) — the few a span needs: ids, parent, name, kind,
// attributes, status.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, AttributeValue>;
  status: { code: number; message: string };
  service: string | null;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Every request's raw body, for "this never appears anywhere" checks. */
  bodies: Buffer[];
  contentTypes: string[];
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

// ── Protobuf wire format ───────────────────────────────────────────────────────────────────────

type Field = { number: number; wire: number; value: bigint | Buffer };

function varint(buffer: Buffer, at: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buffer[at++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, at];
    shift += 7n;
  }
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buffer.length) {
    const [key, next] = varint(buffer, at);
    at = next;
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [value, after] = varint(buffer, at);
      out.push({ number, wire, value });
      at = after;
    } else if (wire === 1) {
      out.push({ number, wire, value: buffer.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const [length, after] = varint(buffer, at);
      out.push({ number, wire, value: buffer.subarray(after, after + Number(length)) });
      at = after + Number(length);
    } else if (wire === 5) {
      out.push({ number, wire, value: buffer.subarray(at, at + 4) });
      at += 4;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

const bytesOf = (list: Field[], number: number) => list.filter((field) => field.number === number).map((field) => field.value as Buffer);
const firstBytes = (list: Field[], number: number) => bytesOf(list, number)[0];
const intOf = (list: Field[], number: number) => Number((list.find((field) => field.number === number)?.value as bigint | undefined) ?? 0n);

/** AnyValue: string 1, bool 2, int 3, double 4, array 5 (ArrayValue.values 1). */
function anyValue(buffer: Buffer): AttributeValue {
  const [field] = fields(buffer);
  if (!field) return null;
  switch (field.number) {
    case 1:
      return (field.value as Buffer).toString('utf8');
    case 2:
      return (field.value as bigint) !== 0n;
    case 3:
      return Number(BigInt.asIntN(64, field.value as bigint));
    case 4:
      return (field.value as Buffer).readDoubleLE(0);
    case 5:
      return bytesOf(fields(field.value as Buffer), 1).map(anyValue);
    default:
      return null;
  }
}

/** KeyValue: key 1, value 2. */
function attributesOf(list: Buffer[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const entry of list) {
    const parts = fields(entry);
    out[firstBytes(parts, 1)?.toString('utf8') ?? ''] = anyValue(firstBytes(parts, 2) ?? Buffer.alloc(0));
  }
  return out;
}

/** ExportTraceServiceRequest.resource_spans 1 → resource 1 (attributes 1), scope_spans 2 → spans 2. */
function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of bytesOf(fields(body), 1)) {
    const outer = fields(resourceSpans);
    const resource = attributesOf(bytesOf(fields(firstBytes(outer, 1) ?? Buffer.alloc(0)), 1));
    for (const scopeSpans of bytesOf(outer, 2)) {
      for (const span of bytesOf(fields(scopeSpans), 2)) {
        // Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, attributes 9, status 15 (message 2, code 3).
        const parts = fields(span);
        const status = fields(firstBytes(parts, 15) ?? Buffer.alloc(0));
        spans.push({
          traceId: firstBytes(parts, 1)?.toString('hex') ?? '',
          spanId: firstBytes(parts, 2)?.toString('hex') ?? '',
          parentSpanId: firstBytes(parts, 4)?.toString('hex') ?? '',
          name: firstBytes(parts, 5)?.toString('utf8') ?? '',
          kind: intOf(parts, 6),
          attributes: attributesOf(bytesOf(parts, 9)),
          status: { code: intOf(status, 3), message: firstBytes(status, 2)?.toString('utf8') ?? '' },
          service: typeof resource['service.name'] === 'string' ? resource['service.name'] : null,
        });
      }
    }
  }
  return spans;
}

// ── JSON (the same messages, proto3 JSON mapping) ──────────────────────────────────────────────

type JsonAny = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: JsonAny[] } };
type JsonKeyValue = { key: string; value?: JsonAny };

function jsonValue(value: JsonAny | undefined): AttributeValue {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(jsonValue);
  return null;
}

const jsonAttributes = (list: JsonKeyValue[] | undefined) => Object.fromEntries((list ?? []).map((entry) => [entry.key, jsonValue(entry.value)]));

function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; attributes?: JsonKeyValue[]; status?: { code?: number; message?: string } }[] }[] }[];
  };
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = jsonAttributes(resourceSpans.resource?.attributes)['service.name'];
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind ?? 0,
        attributes: jsonAttributes(span.attributes),
        status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
        service: typeof service === 'string' ? service : null,
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: Omit<OtlpReceiver, 'url' | 'close'> = { spans: [], bodies: [], contentTypes: [], headers: [] };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') return void response.writeHead(404).end();
      const body = Buffer.concat(chunks);
      const type = request.headers['content-type'] ?? '';
      receiver.bodies.push(body);
      receiver.contentTypes.push(type);
      receiver.headers.push(request.headers);
      const json = type.startsWith('application/json');
      receiver.spans.push(...(json ? decodeJson(body) : decodeProtobuf(body)));
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : Buffer.alloc(0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...receiver,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  } as OtlpReceiver;
}
