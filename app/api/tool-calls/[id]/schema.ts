import { z } from 'zod';
export { toolCallDecisionSchema as decisionBodySchema } from '@/lib/agent/tool-decisions';

export const toolCallParamsSchema = z.object({ id: z.string().uuid('tool call id must be a UUID') });
