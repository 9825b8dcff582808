import { z } from 'zod';

export const taskParamsSchema = z.object({ id: z.string().uuid('task id must be a UUID') }).strict();

export const resumeTaskBodySchema = z
  .object({ input: z.string().max(20_000, 'input must be at most 20,000 characters').default('') })
  .strict();
