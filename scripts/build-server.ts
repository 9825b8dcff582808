// `npm run build`, after `next build`: the server (server.ts and the lib/ it imports) compiled to
// JavaScript once, so `npm start` runs it with plain Node — no TypeScript compiler loaded at every
// start and no loader thread (issue 43 §4: ~35 MiB of an idle app). Packages stay in
// node_modules; what a feature loads on first use (`await import(…)`) stays a chunk of its own.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';

export const COMPILED_SERVER = 'dist/server.mjs';

export const serverBuildOptions = {
  entryPoints: ['server.ts'],
  outdir: path.dirname(COMPILED_SERVER),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  tsconfig: 'tsconfig.json',
  sourcemap: 'linked',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
} satisfies BuildOptions;

export async function buildServer(): Promise<void> {
  await build(serverBuildOptions);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await buildServer();
  console.log(`> server compiled to ${COMPILED_SERVER}`);
}
