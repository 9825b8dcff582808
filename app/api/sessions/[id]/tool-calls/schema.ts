import { z } from 'zod';

export const toolCallsQuerySchema = z
  .object({
    status: z.enum(['proposed', 'awaiting_approval', 'approved', 'denied', 'expired', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted']).optional(),
  })
  .strict();
