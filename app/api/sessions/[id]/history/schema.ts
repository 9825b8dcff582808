import { z } from 'zod';
import { layers } from '@/lib/store/messages-repository';

export const historyQuerySchema = z
  .object({
    layer: z.enum(layers).optional(),
    before: z.coerce.number().int().min(1).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();
