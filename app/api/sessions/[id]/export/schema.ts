import { z } from 'zod';

export const exportQuerySchema = z.object({ format: z.enum(['json', 'md'], { message: 'format must be json or md' }).default('json') }).strict();
