import { z } from 'zod';
export { updateSessionInputSchema as updateSessionBodySchema } from '@/lib/http/session-inputs';

export const sessionParamsSchema = z.object({ id: z.string().uuid('session id must be a UUID') });
