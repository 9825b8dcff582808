import { z } from 'zod';
import { personaContentSchema, personaNameSchema } from '@/lib/personas/persona-name';

export const createPersonaBodySchema = z.object({ name: personaNameSchema, content: personaContentSchema }).strict();
