// JSON text columns are parsed through a zod schema so a hand-edited or older row fails loudly.
import type { z } from 'zod';

/** `defaults` fill keys that rows written by older versions lack. */
export function parseJsonColumn<T>(schema: z.ZodType<T>, text: string, what: string, defaults?: Partial<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`Stored ${what} is not valid JSON`);
  }
  if (defaults && typeof value === 'object' && value !== null) value = { ...defaults, ...value };
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(`Stored ${what} is invalid: ${result.error.issues[0]?.message}`);
  return result.data;
}
