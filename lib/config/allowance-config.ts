// The daily allowances as Settings saves them (issue 48, ARCHITECTURE §24): a list, each for the
// app, a persona or a person, in dollars and/or tokens per local day of its time zone.
import { z } from 'zod';
import { timeZoneSchema } from './time-zone';

export const allowanceSchema = z
  .object({
    scope: z.enum(['app', 'persona', 'person']),
    /** '' (or absent) for the app; the persona's name; the person's id. */
    scope_id: z.string().trim().max(200).default(''),
    usd_per_day: z.number().min(0, 'usd_per_day must be 0 or more').max(100_000).nullable().default(null),
    tokens_per_day: z.number().int().min(0, 'tokens_per_day must be 0 or more').max(1_000_000_000).nullable().default(null),
    time_zone: timeZoneSchema.default('UTC'),
  })
  .strict()
  .refine((value) => value.usd_per_day !== null || value.tokens_per_day !== null, 'an allowance needs usd_per_day, tokens_per_day or both')
  .refine((value) => (value.scope === 'app') === (value.scope_id === ''), 'scope_id is empty for the app, and names the persona or person otherwise');

export const allowancesInputSchema = z
  .object({ allowances: z.array(allowanceSchema).max(500, 'at most 500 allowances') })
  .strict()
  .refine((value) => new Set(value.allowances.map((allowance) => `${allowance.scope}:${allowance.scope_id}`)).size === value.allowances.length, 'one allowance per app, persona or person');

export type AllowanceInput = z.infer<typeof allowanceSchema>;
