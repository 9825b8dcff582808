import { z } from 'zod';

/** POST /api/backups takes no options yet: the folder and the passphrase are the schedule's (Settings › Backups). */
export const startBackupSchema = z.object({}).strict();
