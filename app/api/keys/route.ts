// Keys for the doors (issue 46 §1, ARCHITECTURE §23): listed without their secrets; a new key's
// secret is in the 201 and nowhere else. Each acts as one person on the personas it names.
import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { personaExists } from '@/lib/personas/persona-files';
import { personaNameSchema } from '@/lib/personas/persona-name';
import { apiKeyJson, createApiKey, listApiKeys } from '@/lib/store/api-keys-repository';
import { getDb } from '@/lib/store/db';
import { OWNER_ID } from '@/lib/store/people-repository';
import { visitorOf } from '@/lib/http/web-visitor';
import { personasFor } from '@/lib/people/web-reach';

export const dynamic = 'force-dynamic';

const createKeySchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    person_id: z.string().min(1).max(200).default(OWNER_ID),
    personas: z.array(personaNameSchema).min(1).max(100),
  })
  .strict();

// A trusted person (issue 61 §3) lists and makes their own keys only, for the personas they may use.
export const GET = handle(async (request) => {
  const visitor = await visitorOf(request);
  return Response.json({ keys: (await listApiKeys(visitor.owner ? undefined : visitor.person?.id)).map(apiKeyJson) });
});

export const POST = handle(async (request) => {
  const visitor = await visitorOf(request);
  const asked = await readJsonBody(request, createKeySchema, 16 * 1024);
  const input = visitor.owner || !visitor.person ? asked : { ...asked, person_id: visitor.person.id };
  if (visitor.person && !visitor.owner) {
    const allowed = new Set(await personasFor(visitor.person, input.personas));
    if (input.personas.some((name) => !allowed.has(name))) throw new ApiError('validation_failed', 'A key may name only the personas you may use');
  }
  const missing = input.personas.filter((name) => !personaExists(name));
  if (missing.length > 0) throw new ApiError('validation_failed', `No persona ${missing.map((name) => `"${name}"`).join(', ')}`);
  if (!(await (await getDb()).person.findUnique({ where: { id: input.person_id } }))) throw new ApiError('validation_failed', `No person ${input.person_id}`);
  const { key, secret } = await createApiKey({ name: input.name, personId: input.person_id, personas: input.personas });
  return Response.json({ key: { ...apiKeyJson(key), secret } }, { status: 201 });
});
