// One version per release, however it is started (issue 60 §1). DBOS stamps every run with an
// application version and recovers only runs of its own; left to itself it hashes the printed text
// of the registered workflow functions — which tsx and the bundler print differently, and which
// does not change when the task workflow (called from that wrapper) does. So the app names the
// version itself: `AGENTCSD_APP_VERSION` when set, else the package's version, the schema's newest
// migration and a digest of the source files that define what a run does — the same from
// `npm run dev`, `npm start`, `npm run worker` and `npm run start:worker` of one checkout, and a new
// one when a run's code changes.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { processSlot } from '@/lib/process/process-state';

/** The folders (and files) whose sources define what a durable run does: its steps and their order. */
export const RUN_SOURCES = ['lib/engine', 'lib/tasks', 'lib/agent/short-runs.ts'];

function sourcesUnder(root: string, entry: string): string[] {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [entry];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .flatMap((child) => (child.isDirectory() ? sourcesUnder(root, path.join(entry, child.name)) : /\.tsx?$/.test(child.name) && !/\.test\.tsx?$/.test(child.name) ? [path.join(entry, child.name)] : []));
}

/** The newest migration's folder name ('' without any). */
function newestMigration(root: string): string {
  const folder = path.join(root, 'prisma', 'migrations');
  if (!fs.existsSync(folder)) return '';
  return fs.readdirSync(folder).filter((name) => /^\d+_/.test(name)).sort().at(-1) ?? '';
}

/** The version this checkout runs as: `<package version>+<newest migration's stamp>.<digest of the run sources>`. */
export function computeAppVersion(root: string = process.cwd()): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string };
  const hash = createHash('sha256');
  const files = RUN_SOURCES.flatMap((entry) => sourcesUnder(root, entry)).map((file) => file.split(path.sep).join('/')).sort();
  for (const file of files) {
    hash.update(`${file}\0`);
    // Line endings do not make a new version (a checkout on Windows is the same release).
    hash.update(fs.readFileSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ root, file), 'utf8').replace(/\r\n/g, '\n'));
    hash.update('\0');
  }
  return `${pkg.version ?? '0.0.0'}+${newestMigration(root).split('_')[0]}.${hash.digest('hex').slice(0, 12)}`;
}

const computed = processSlot<string | null>('engine.app-version', () => null);

/** AGENTCSD_APP_VERSION, else this checkout's computed version (once per process). */
export function appVersion(env: Record<string, string | undefined> = process.env): string {
  const named = env.AGENTCSD_APP_VERSION?.trim();
  if (named) return named;
  computed.value ??= computeAppVersion();
  return computed.value;
}
