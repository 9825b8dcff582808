// Fresh data folder and a copy of the shipped personas for one end-to-end run, so the tests
// never touch the user's data/ or the repository's personas/.
import fs from 'node:fs';

const root = 'test-results/e2e-run';
fs.rmSync(root, { recursive: true, force: true });
fs.mkdirSync(`${root}/data`, { recursive: true });
fs.cpSync('personas', `${root}/personas`, { recursive: true });
