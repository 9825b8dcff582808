// The store's condition, told from real errors (issue 73 §3–4): a real SQLite "database or disk is
// full" (a database capped at its page count), a real refused PostgreSQL connection (a loopback port
// nobody listens on), Prisma's and PostgreSQL's own codes — and a bug is none of them.
import net from 'node:net';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { toApiError } from '@/lib/http/api-error';
import { realDiskFullError } from '@/test/support/disk-full';
import { failureText, logFailure, STORE_FAULT_WORDS, storeFault } from './store-faults';


async function realRefused(): Promise<unknown> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  const client = new pg.Client({ connectionString: `postgres://nobody@127.0.0.1:${port}/none`, connectionTimeoutMillis: 2_000 });
  return client.connect().then(
    () => new Error('connected to nobody'),
    (error: unknown) => error,
  );
}

describe('storeFault', () => {
  it('a full SQLite database is disk_full; the API answers 507 in words', () => {
    const error = realDiskFullError();
    expect(storeFault(error)).toBe('disk_full');
    expect(toApiError(error)).toMatchObject({ status: 507, code: 'insufficient_storage', message: expect.stringMatching(/^The disk is full: nothing was taken/) });
    // Wrapped as Prisma's adapter wraps it, it is still found (the cause is read).
    expect(storeFault(new Error('Invalid `prisma.task.update()` invocation', { cause: error }))).toBe('disk_full');
  });

  it('a refused PostgreSQL connection is unreachable; the API answers 503 in words', async () => {
    const error = await realRefused();
    expect(storeFault(error)).toBe('unreachable');
    expect(toApiError(error)).toMatchObject({ status: 503, code: 'unavailable', message: expect.stringMatching(/^The database cannot be reached right now: nothing was taken/) });
  });

  it("codes: Prisma's P1001, PostgreSQL's 57P01 and 53100, ENOSPC; a bug is none", () => {
    expect(storeFault(Object.assign(new Error("Can't reach database server at `127.0.0.1:5432`"), { code: 'P1001' }))).toBe('unreachable');
    expect(storeFault(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe('unreachable');
    expect(storeFault(Object.assign(new Error('could not extend file'), { code: '53100' }))).toBe('disk_full');
    expect(storeFault(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))).toBe('disk_full');
    expect(storeFault(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBeNull();
    expect(storeFault('a string')).toBeNull();
    const circular: { cause?: unknown } = {};
    circular.cause = circular;
    expect(storeFault(circular)).toBeNull();
  });

  it('a person is told the condition in words and the log gets one line for it; any other failure is logged whole', async () => {
    const refused = await realRefused();
    expect(failureText(refused)).toBe(STORE_FAULT_WORDS.unreachable);
    expect(failureText(realDiskFullError())).toBe(STORE_FAULT_WORDS.disk_full);
    expect(failureText(new TypeError('x is undefined'))).toBe('x is undefined');
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      logFailure('[mind s] turn t failed', refused);
      const bug = new TypeError('x is undefined');
      logFailure('[mind s] turn t failed', bug);
      expect(logged.mock.calls).toEqual([[`[mind s] turn t failed: ${STORE_FAULT_WORDS.unreachable}`], ['[mind s] turn t failed', bug]]);
    } finally {
      logged.mockRestore();
    }
  });
});
