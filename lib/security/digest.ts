// One SHA-256 for the app: content addresses of files and imports, argument hashes that bind a
// decision to what was shown, persona and migration checksums, memory identity.
import { createHash } from 'node:crypto';

/** The SHA-256 of text (UTF-8) or bytes, as 64 hex digits. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
