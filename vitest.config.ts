import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The tests that go through the store: run a second time with the store in PostgreSQL. (The mind's
 * pacing tests are not among them: they step a simulated clock a few event-loop turns at a time,
 * which assumes the store answers in-process, as SQLite does.)
 */
const storeTests = [
  'lib/store/tool-calls-repository.test.ts',
  'lib/store/log-reconcile.test.ts',
  'lib/memory/memory.test.ts',
  'lib/agent/agent-turn.test.ts',
  'test/memory/*.test.ts',
  'test/api/*.test.ts',
  'test/faults/*.test.ts',
  'test/capabilities/capabilities-flow.test.ts',
  'test/capabilities/hostile-graphs.test.ts',
  'test/tasks/*.test.ts',
  'test/channels/telegram.test.ts',
  'test/channels/people.test.ts',
  'test/voice/telegram-voice.test.ts',
  'test/voice/push-to-talk-route.test.ts',
  'test/voice/voice-settings-route.test.ts',
  'test/security/people-leak-corpus.test.ts',
  'test/security/benign-sessions.test.ts',
  'test/security/benign-week.test.ts',
  'test/doors/*.test.ts',
  'test/allowances/*.test.ts',
  'test/people/*.test.ts',
  'test/triggers/schedule-tool.test.ts',
  'test/mcp/oauth-sign-in.test.ts',
  'test/backup/backup-restore.test.ts',
  'test/backup/backup-secrets.test.ts',
  'test/backup/backup-schedule.test.ts',
  'test/backup/settings-travel.test.ts',
];

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    environment: 'node',
    exclude: ['**/node_modules/**', 'e2e', '.next'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each file gets its own data folder; forks keep native modules and globals apart.
    pool: 'forks',
    // Two files at a time even on two cores (Vitest's default there is one): most of a file's time
    // is spent waiting on real processes, servers and databases, so the suite fits CI's 30 minutes.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['lib/**/*.test.ts', 'app/**/*.test.ts', 'components/**/*.test.ts', 'test/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'postgres', include: storeTests, globalSetup: ['test/support/postgres-store-setup.ts'], env: { AGENTCSD_TEST_STORE: 'postgres' } },
      },
    ],
  },
});
