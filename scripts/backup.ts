// `npm run backup -- --to FILE [--passphrase-file F | --without-secrets]`: the whole app in one
// archive while it runs (lib/backup/take-backup.ts; docs/operations.md, "Backups and restore").
import { parseArgs } from 'node:util';
import { BackupError } from '../lib/backup/backup-manifest';
import { takeBackup } from '../lib/backup/take-backup';
import { readPassphrase } from '../lib/backup/passphrase-file';

const usage = 'npm run backup -- --to FILE (--passphrase-file F | --without-secrets)';

try {
  const { values } = parseArgs({ options: { to: { type: 'string' }, 'passphrase-file': { type: 'string' }, 'without-secrets': { type: 'boolean' } } });
  if (!values.to) throw new BackupError('failed', `Where to? ${usage}`);
  if (!values['passphrase-file'] === !values['without-secrets'])
    throw new BackupError('failed', `Choose one: --passphrase-file F (the sealing key and saved API keys travel, encrypted with the passphrase) or --without-secrets (they are left out and typed again after a restore). ${usage}`);
  const passphrase = values['passphrase-file'] ? readPassphrase(values['passphrase-file']) : undefined;
  let shown = -1;
  const result = await takeBackup({
    to: values.to,
    passphrase,
    onProgress: (done, what) => {
      const percent = Math.floor(done * 100);
      if (percent >= shown + 10 || done === 1) console.log(`${String(percent).padStart(3)}% ${what}`), (shown = percent);
    },
  });
  console.log(`Backup written: ${result.file} (${(result.size / 1024 / 1024).toFixed(1)} MiB, ${result.manifest.parts.length} parts, schema ${result.manifest.newest_migration})`);
  if (result.manifest.secrets === 'left-out' && result.manifest.secret_holders.length)
    console.log(`Left out (to type again after a restore):\n${result.manifest.secret_holders.map((line) => `  - ${line}`).join('\n')}`);
  process.exit(0);
} catch (error) {
  console.error(error instanceof BackupError || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? `Backup refused: ${(error as Error).message}` : error);
  process.exit(1);
}
