// `npm test`: the unit and integration tests (Vitest), then the end-to-end tests (Playwright
// against the production build). The build the end-to-end run needs is made while the unit tests
// run, at the lowest CPU priority (`nice`): most of a unit test's time is spent waiting on real
// processes, servers and databases, and the build takes the cores they leave idle instead of
// 2–3 minutes of its own after them (issue 64 §4). The end-to-end run then starts the server
// from that build. A failed build is reported with its output; the unit tests' result comes first.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const log = 'test-results/build.log';
fs.mkdirSync('test-results', { recursive: true });

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const out = fs.openSync(log, 'w');
const nice = fs.existsSync('/usr/bin/nice') ? ['/usr/bin/nice', ['-n', '19', 'npm', 'run', 'build']] : ['npm', ['run', 'build']];
const build = run(nice[0], nice[1], { stdio: ['ignore', out, out] });
const unit = await run('npm', ['run', 'test:unit']);
const built = await build;
fs.closeSync(out);
if (unit !== 0) process.exit(unit);
if (built !== 0) {
  process.stdout.write(fs.readFileSync(log, 'utf8'));
  console.error(`npm run build failed (exit ${built}): the end-to-end tests need it`);
  process.exit(built);
}
process.exit(await run('npm', ['run', 'test:e2e'], { env: { ...process.env, E2E_PREBUILT: '1' } }));
