// The server as `npm run start:worker` runs it, compiled once for a test file (esbuild, as
// `npm run build` does) and removed afterwards: restarts are Node starting JavaScript, not tsx
// compiling server.ts.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll } from 'vitest';
import { serverBuildOptions } from '@/scripts/build-server';

/** The path of the file's compiled `server.mjs` (built before its tests). */
export function useCompiledServer(name: string): string {
  const bundleDir = path.resolve(`test-results/bundle-${name}-${process.pid}`);
  beforeAll(async () => {
    await build({ ...serverBuildOptions, outdir: bundleDir, logLevel: 'error' });
  }, 60_000);
  afterAll(() => fs.rmSync(bundleDir, { recursive: true, force: true }));
  return path.join(bundleDir, 'server.mjs');
}
