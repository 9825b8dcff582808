// `npm run restore -- --from FILE [--passphrase-file F | --without-secrets]`: a backup into an
// empty data folder, checked whole before anything is written (lib/backup/restore-backup.ts).
import { parseArgs } from 'node:util';
import { appPaths, readEnv } from '../lib/config/env';
import { BackupError } from '../lib/backup/backup-manifest';
import { readPassphrase } from '../lib/backup/passphrase-file';
import { restoreBackup } from '../lib/backup/restore-backup';

try {
  const { values } = parseArgs({ options: { from: { type: 'string' }, 'passphrase-file': { type: 'string' }, 'without-secrets': { type: 'boolean' } } });
  if (!values.from) throw new BackupError('failed', 'From where? npm run restore -- --from FILE [--passphrase-file F | --without-secrets]');
  const result = await restoreBackup({
    from: values.from,
    passphrase: values['passphrase-file'] ? readPassphrase(values['passphrase-file']) : undefined,
    withoutSecrets: values['without-secrets'],
  });
  console.log(`Restored the backup of ${result.manifest.created_at} (app ${result.manifest.app_version}) into ${appPaths().dataDir}${readEnv().AGENTCSD_DATABASE_URL ? ' and the PostgreSQL database' : ''}.`);
  if (result.migrated.length) console.log(`Its schema was older: migrated forward (${result.migrated.join(', ')}).`);
  if (result.personas.length) console.log(`Personas and skills written: ${result.personas.join(', ')}`);
  if (result.toTypeAgain.length) console.log(`Restored without its secrets. Type these again (Settings):\n${result.toTypeAgain.map((line) => `  - ${line}`).join('\n')}`);
  if (readEnv().AGENTCSD_SECRET_KEY) console.log('Note: AGENTCSD_SECRET_KEY is set and wins over the restored data/secret.key; unset it to use the backup’s key.');
  console.log('Start the app: npm run dev');
  process.exit(0);
} catch (error) {
  console.error(error instanceof BackupError ? `Restore refused: ${error.message}` : error);
  process.exit(1);
}
