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

/** What a signed-in person may not reach answers 404 (issue 61): a page reads it as nothing there. */
export function unlessNotFound<T>(work: Promise<T>, empty: T): Promise<T> {
  return work.catch((caught: unknown) => (caught instanceof ApiRequestError && caught.status === 404 ? empty : Promise.reject(caught)));
}
