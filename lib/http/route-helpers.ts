// Shared plumbing for route handlers: bounded JSON bodies, zod parsing, error rendering.
import type { z } from 'zod';
import { ApiError, toApiError, validationError } from './api-error';

export const defaultBodyLimit = 512 * 1024;

/** Reads and validates a JSON body: 415 unless JSON, 413 past the limit, 400 if malformed. */
export async function readJsonBody<T>(request: Request, schema: z.ZodType<T>, limit = defaultBodyLimit): Promise<T> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new ApiError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
  }
  const text = await readLimitedText(request, limit);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'Body is not valid JSON');
  }
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error);
  return result.data;
}

async function readLimitedText(request: Request, limit: number): Promise<string> {
  return new TextDecoder().decode(await readLimitedBytes(request, limit));
}

/** The raw body, refused (413) past `limit` bytes without reading the rest. */
export async function readLimitedBytes(request: Request, limit: number): Promise<Buffer> {
  if (Number(request.headers.get('content-length') ?? '0') > limit) throw new ApiError('payload_too_large', `Body is larger than ${limit} bytes`);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw new ApiError('payload_too_large', `Body is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export function parseSearchParams<T>(request: Request, schema: z.ZodType<T>): T {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const result = schema.safeParse(params);
  if (!result.success) throw validationError(result.error, 'query');
  return result.data;
}

export function parseParams<T>(params: unknown, schema: z.ZodType<T>): T {
  const result = schema.safeParse(params);
  if (!result.success) {
    // An id that cannot exist is an unknown resource, not a malformed request.
    throw new ApiError('not_found', `Not found: ${result.error.issues[0]?.message ?? 'bad id'}`);
  }
  return result.data;
}

/** Wraps a handler so every thrown error becomes the JSON error shape. */
export function handle<C>(handler: (request: Request, context: C) => Promise<Response>) {
  return async (request: Request, context: C): Promise<Response> => {
    try {
      return await handler(request, context);
    } catch (error) {
      return toApiError(error).toResponse();
    }
  };
}

/**
 * A multipart form of at most `limit` bytes: 415 with `what` when the body is not one (say what to
 * send), 413 past the limit before the rest is read, 400 when it does not parse.
 */
export async function readMultipartForm(request: Request, limit: number, what: string): Promise<FormData> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) throw new ApiError('unsupported_media_type', what);
  const body = await readLimitedBytes(request, limit);
  try {
    return await new Response(new Uint8Array(body), { headers: { 'content-type': type } }).formData();
  } catch {
    throw new ApiError('validation_failed', 'The body is not a valid multipart form');
  }
}
