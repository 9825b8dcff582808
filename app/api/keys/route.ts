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

export const dynamic = 'force-dynamic';

const createKeySchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    person_id: z.string().min(1).max(200).default(OWNER_ID),
    personas: z.array(personaNameSchema).min(1).max(100),
  })
  .strict();

export const GET = handle(async () => Response.json({ keys: (await listApiKeys()).map(apiKeyJson) }));

export const POST = handle(async (request) => {
  const input = await readJsonBody(request, createKeySchema, 16 * 1024);
  const missing = input.personas.filter((name) => !personaExists(name));
  if (missing.length > 0) throw new ApiError('validation_failed', `No persona ${missing.map((name) => `"${name}"`).join(', ')}`);
  if (!(await (await getDb()).person.findUnique({ where: { id: input.person_id } }))) throw new ApiError('validation_failed', `No person ${input.person_id}`);
  const { key, secret } = await createApiKey({ name: input.name, personId: input.person_id, personas: input.personas });
  return Response.json({ key: { ...apiKeyJson(key), secret } }, { status: 201 });
});
