// The owner's access token when the app makes one (bound beyond loopback, or behind a public URL):
// kept in the data folder (`access-token`, readable by this user alone) so a restart does not lock
// the owner out of every browser that held it (issue 75 §5). AGENTCSD_ACCESS_TOKEN, when set, wins.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const FILE = 'access-token';
const WELL_FORMED = /^[0-9a-f]{48}$/;

/** The token kept in `dataDir`, made (and written, mode 0600) the first time or when the file holds anything else. */
export function keptAccessToken(dataDir: string): string {
  const file = path.join(dataDir, FILE);
  try {
    const kept = fs.readFileSync(file, 'utf8').trim();
    if (WELL_FORMED.test(kept)) {
      fs.chmodSync(file, 0o600);
      return kept;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(24).toString('hex');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return token;
}
