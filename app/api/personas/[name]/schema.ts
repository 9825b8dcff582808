import { z } from 'zod';
import { personaContentSchema, personaNameSchema } from '@/lib/personas/persona-name';

export const personaParamsSchema = z.object({ name: personaNameSchema });
export const updatePersonaBodySchema = z.object({ content: personaContentSchema }).strict();
