// Text a person types that the store keeps: never a NUL character. SQLite would store it, but
// PostgreSQL refuses NUL in text (the durable store, issue 19), JSONL logs and most tools choke on
// it, and no keyboard sends one — so it is refused at the door with a clear reason.
import { z } from 'zod';

export function withoutNul<T extends z.ZodType<string>>(schema: T): T {
  return schema.refine((value) => !value.includes('\u0000'), { message: 'must not contain NUL characters' }) as T;
}
