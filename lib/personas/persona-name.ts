// Persona names are file names without ".md", checked before any path is built from them.
import { z } from 'zod';

// Windows device names: refused everywhere so a personas folder stays portable.
const reservedNames = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

export const personaNameSchema = z
  .string({ message: 'persona name must be a string' })
  .min(1, 'persona name is required')
  .max(64, 'persona name must be at most 64 characters')
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]*$/,
    'persona name may contain only letters, digits, "-" and "_", and must start with a letter or digit',
  )
  .refine((name) => !reservedNames.test(name), { message: 'persona name is a reserved device name' });

export type PersonaName = z.infer<typeof personaNameSchema>;

/** At most 256 KiB of Markdown: far more than a system prompt should ever hold. */
export const personaContentSchema = z
  .string({ message: 'content must be a string' })
  .max(256 * 1024, 'persona content must be at most 256 KiB')
  .refine((content) => !content.includes('\u0000'), { message: 'persona content must not contain NUL bytes' });
