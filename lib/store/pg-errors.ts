// node-postgres emits 'error' on a client whose server goes away (a restart, a kill, an admin's
// pg_terminate_backend) — idle in a pool, checked out, or on its own — and an 'error' event nobody
// listens to ends the process. Every pool and client the app opens itself is given a listener
// here; the statement that was running still rejects, so its caller says what failed.
import type pg from 'pg';

/** Every client the pool opens reports its connection's loss, checked out or idle. */
export function reportPoolErrors(pool: pg.Pool, report: (message: string) => void): pg.Pool {
  pool.on('connect', (client) => client.on('error', (error) => report(error.message)));
  pool.on('error', () => undefined); // an idle client's loss, already reported by its own listener
  return pool;
}

/** A client of its own: its loss reaches the caller as the failing statement's error. */
export function quietClient<Client extends pg.Client>(client: Client): Client {
  client.on('error', () => undefined);
  return client;
}
