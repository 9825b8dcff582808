// Browser-side calls to the REST API; a non-2xx answer throws with the server's own message.
'use client';

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function apiFetch<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers: init.body === undefined ? undefined : { 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    cache: 'no-store',
  });
  if (response.status === 204) return undefined as T;
  const payload = (await response.json().catch(() => null)) as T | { error?: { code: string; message: string } } | null;
  if (!response.ok || payload === null) {
    const error = (payload as { error?: { code: string; message: string } } | null)?.error;
    throw new ApiRequestError(response.status, error?.code ?? 'http_error', error?.message ?? `Request failed (${response.status})`);
  }
  return payload as T;
}

/**
 * What the visitor may not have answers 404 (a signed-in person: not theirs) or 403 (the owner: a
 * person's words) (issue 61): a page reads that answer as nothing there, and any other as an error.
 */
export function unlessRefused<T>(work: Promise<T>, empty: T, status: 403 | 404 = 404): Promise<T> {
  return work.catch((caught: unknown) => (caught instanceof ApiRequestError && caught.status === status ? empty : Promise.reject(caught)));
}
