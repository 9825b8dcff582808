import { describe, expect, it } from 'vitest';
import { realClock } from '@/lib/clock/clock';
import { readEnv as readProcessEnv } from '@/lib/config/env';
import { createEngine, redactUrl } from './create-engine';
import { DbosEngine } from './dbos-engine';
import { InMemoryEngine } from './in-memory-engine';

const readEnv = (variables: Record<string, string>) => readProcessEnv(variables as NodeJS.ProcessEnv);

describe('createEngine', () => {
  it('is in memory by default; DBOS when asked, with its database named without the password', async () => {
    const memory = await createEngine(readEnv({}), realClock);
    expect(memory.engine).toBeInstanceOf(InMemoryEngine);
    expect(memory.description).toBe('in-memory');

    const durable = await createEngine(readEnv({ AGENTCSD_ENGINE: 'dbos', AGENTCSD_DATABASE_URL: 'postgres://agentcsd:s3cret@127.0.0.1:5432/agentcsd', AGENTCSD_EXECUTOR_ID: 'desk-1', AGENTCSD_APP_VERSION: '2.1.0' }), realClock);
    expect(durable.engine).toBeInstanceOf(DbosEngine);
    expect(durable.description).toBe('DBOS on postgres://agentcsd:***@127.0.0.1:5432/agentcsd as desk-1, version 2.1.0');
    expect(durable.description).not.toContain('s3cret');
  });

  it('refuses DBOS without a database, a URL that is not PostgreSQL and an executor id with odd characters, saying why', async () => {
    await expect(createEngine(readEnv({ AGENTCSD_ENGINE: 'dbos' }), realClock)).rejects.toThrow('AGENTCSD_ENGINE=dbos needs AGENTCSD_DATABASE_URL=postgres://');
    expect(() => readEnv({ AGENTCSD_ENGINE: 'temporal' })).toThrow('AGENTCSD_ENGINE');
    expect(() => readEnv({ AGENTCSD_DATABASE_URL: 'mysql://x@y/z' })).toThrow('AGENTCSD_DATABASE_URL: must be a postgres:// URL');
    expect(() => readEnv({ AGENTCSD_EXECUTOR_ID: 'a b; rm -rf' })).toThrow('AGENTCSD_EXECUTOR_ID');
    expect(redactUrl('not a url')).toBe('an unreadable URL');
  });
});
