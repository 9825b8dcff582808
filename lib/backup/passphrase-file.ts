// A passphrase is read from a file (never a command-line argument others could read in `ps`):
// its first line, without the line ending.
import fs from 'node:fs';
import { BackupError } from './backup-manifest';
import { errorText } from '@/lib/errors/error-text';

export function readPassphrase(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new BackupError('passphrase', `The passphrase file cannot be read: ${errorText(error)}`);
  }
  return text.split(/\r?\n/)[0] ?? '';
}
