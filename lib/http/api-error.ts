// One error type for the REST boundary: it knows its status and renders `{ error: { code, message } }`.
import { z } from 'zod';
import { SessionNotFoundError, SessionPausedError } from '@/lib/mind/session-errors';
import { PersonaError } from '@/lib/personas/persona-files';
import { STORE_FAULT_WORDS, storeFault } from '@/lib/store/store-faults';

export type ApiErrorCode =
  | 'invalid_json'
  | 'validation_failed'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'unprocessable'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'unauthorized'
  | 'forbidden'
  | 'upstream_failed'
  | 'too_many_requests'
  | 'unavailable'
  | 'insufficient_storage'
  | 'internal';

const statusByCode: Record<ApiErrorCode, number> = {
  invalid_json: 400,
  validation_failed: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  unprocessable: 422,
  not_found: 404,
  conflict: 409,
  gone: 410,
  unauthorized: 401,
  forbidden: 403,
  upstream_failed: 502,
  too_many_requests: 429,
  unavailable: 503,
  insufficient_storage: 507,
  internal: 500,
};

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = statusByCode[code];
  }

  /** What `{ error: … }` carries, over REST and in socket acknowledgements alike. */
  get body(): { code: ApiErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }

  toResponse(): Response {
    return Response.json({ error: this.body }, { status: this.status });
  }
}

export function validationError(error: z.ZodError, where = 'body'): ApiError {
  const details = error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  return new ApiError('validation_failed', `Invalid ${where}: ${details.join('; ')}`);
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof z.ZodError || (error instanceof Error && error.name === 'ZodError')) return validationError(error as z.ZodError);
  if (SessionNotFoundError.is(error)) return new ApiError('not_found', error.message);
  if (SessionPausedError.is(error)) return new ApiError('conflict', error.message);
  // By name: the task service runs in server.ts's copy of the modules, the route in Next's.
  if (error instanceof Error && (error.name === 'TaskError' || error.name === 'MemoryError' || error.name === 'PairingError') && 'code' in error) return new ApiError(error.code === 'not_found' ? 'not_found' : error.code === 'validation' ? 'validation_failed' : 'conflict', error.message);
  if (error instanceof Error && error.name === 'ScheduleError' && 'code' in error) {
    return new ApiError(error.code === 'validation' ? 'validation_failed' : error.code === 'not_found' ? 'not_found' : 'conflict', error.message);
  }
  if (error instanceof Error && error.name === 'AttachmentError' && 'code' in error) return new ApiError(error.code === 'not_found' ? 'not_found' : 'conflict', error.message);
  if (error instanceof Error && error.name === 'McpServerError' && 'code' in error) return new ApiError(error.code === 'not_found' ? 'not_found' : 'conflict', error.message);
  if (error instanceof Error && error.name === 'ElicitationError' && 'code' in error) {
    return new ApiError(error.code === 'validation' ? 'validation_failed' : error.code === 'not_found' ? 'not_found' : 'conflict', error.message);
  }
  if (error instanceof Error && error.name === 'McpCatalogError' && 'code' in error) {
    return new ApiError(error.code === 'validation' ? 'validation_failed' : error.code === 'not_found' ? 'not_found' : 'upstream_failed', error.message);
  }
  if (error instanceof Error && error.name === 'SignInError' && 'code' in error) {
    return new ApiError(error.code === 'unknown_state' ? 'validation_failed' : error.code === 'refused' ? 'forbidden' : 'upstream_failed', error.message);
  }
  if (PersonaError.is(error)) {
    switch (error.kind) {
      case 'not_found':
        return new ApiError('not_found', error.message);
      case 'already_exists':
        return new ApiError('conflict', error.message);
      case 'invalid_name':
      case 'not_a_file':
        return new ApiError('validation_failed', error.message);
    }
  }
  // The store's condition, not a bug: said in words, and not logged as a stack per request.
  const fault = storeFault(error);
  if (fault) return new ApiError(fault === 'disk_full' ? 'insufficient_storage' : 'unavailable', STORE_FAULT_WORDS[fault]);
  console.error('[api] unexpected error', error);
  return new ApiError('internal', 'Internal error; the server log has the details');
}
