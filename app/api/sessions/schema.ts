import { z } from 'zod';
export { createSessionInputSchema as createSessionBodySchema } from '@/lib/http/session-inputs';

export const listSessionsQuerySchema = z
  .object({
    search: z.string().max(200).optional(),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    page_size: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
