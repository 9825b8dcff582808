// Issue 43 §4: an idle app holds only what it uses. The libraries of features a user may never
// turn on — images, the durable engine, the chat apps, the model SDKs other than the one in use —
// are loaded when first needed; so are PostgreSQL's pieces on an app on SQLite (the driver itself,
// used by several stores' statements, is still loaded: issue 43's closing note). Checked on the
// compiled server itself: what `npm start` loads before its first request is the entry file and
// the chunks it imports statically.
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { serverBuildOptions } from '@/scripts/build-server';

const LOADED_ON_FIRST_USE = ['sharp', 'unpdf', 'undici', '@dbos-inc/dbos-sdk', 'grammy', 'irc-framework', '@slack/bolt', '@slack/socket-mode', '@slack/web-api', '@anthropic-ai/sdk', 'openai', '@modelcontextprotocol/sdk', '@socket.io/postgres-adapter', '@prisma/adapter-pg', 'playwright-core', 'tar', '@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/context-async-hooks', '@opentelemetry/resources', '@opentelemetry/semantic-conventions', '@opentelemetry/exporter-trace-otlp-proto', '@opentelemetry/exporter-trace-otlp-http'];

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The packages an output file and every chunk it imports statically load, transitively. */
function staticPackages(metafile: Metafile, entry: string): { packages: Set<string>; lazyChunks: number } {
  const packages = new Set<string>();
  const seen = new Set<string>();
  let lazyChunks = 0;
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (imported.kind === 'dynamic-import') {
        if (!imported.external) lazyChunks++;
        continue;
      }
      if (imported.external) packages.add(packageOf(imported.path));
      else visit(imported.path);
    }
  };
  visit(entry);
  return { packages, lazyChunks };
}

describe('the compiled server', () => {
  it('loads the libraries of optional features on first use, not at start', async () => {
    const result = await build({ ...serverBuildOptions, write: false, metafile: true, sourcemap: false, logLevel: 'silent' });
    const { packages, lazyChunks } = staticPackages(result.metafile, 'dist/server.mjs');
    // The app's own foundation is there (so the walk is real)…
    expect(packages).toContain('next');
    expect(packages).toContain('socket.io');
    expect(packages).toContain('better-sqlite3');
    // …and none of these.
    expect(LOADED_ON_FIRST_USE.filter((name) => packages.has(name))).toEqual([]);
    expect(lazyChunks).toBeGreaterThanOrEqual(3);
  });
});
