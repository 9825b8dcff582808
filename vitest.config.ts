import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    environment: 'node',
    include: ['lib/**/*.test.ts', 'app/**/*.test.ts', 'components/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['node_modules', 'e2e', '.next'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each file gets its own data folder; forks keep native modules and globals apart.
    pool: 'forks',
  },
});
