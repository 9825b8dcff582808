// The server as `npm run start:worker` runs it, compiled once (esbuild, as `npm run build` does)
// beside node_modules, which it imports, and removed afterwards: restarts are Node starting
// JavaScript, not tsx compiling server.ts. For a test file (useCompiledServer) or a benchmark.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll } from 'vitest';
import { serverBuildOptions } from '@/scripts/build-server';

/** Builds `server.mjs` under test-results/; its path, and how to remove it. */
export async function buildServerBundle(name: string): Promise<{ file: string; remove(): void }> {
  const bundleDir = path.resolve(`test-results/bundle-${name}-${process.pid}`);
  await build({ ...serverBuildOptions, outdir: bundleDir, logLevel: 'error' });
  return { file: path.join(bundleDir, 'server.mjs'), remove: () => fs.rmSync(bundleDir, { recursive: true, force: true }) };
}

/** The path of the file's compiled `server.mjs` (built before its tests). */
export function useCompiledServer(name: string): string {
  const file = path.resolve(`test-results/bundle-${name}-${process.pid}/server.mjs`);
  let built: { remove(): void } | null = null;
  beforeAll(async () => {
    built = await buildServerBundle(name);
  }, 60_000);
  afterAll(() => built?.remove());
  return file;
}
