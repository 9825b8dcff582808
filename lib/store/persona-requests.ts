// A guest's request for someone to talk to (issue 75 §4): a guest the owner has given no persona
// asks from their home page; the owner sees it on People and gives one with one click. One settings
// row per person (`persona_request:<id>`), so two people asking at once never overwrite each other.
import { z } from 'zod';
import { getDb } from './db';
import { readJsonSetting, writeJsonSetting } from './settings-repository';

const PREFIX = 'persona_request:';
const requestSchema = z.object({ asked_at: z.string(), note: z.string().max(500).nullable() });
export type PersonaRequest = z.infer<typeof requestSchema>;

export async function askForPersona(personId: string, note: string | null, now: Date): Promise<PersonaRequest> {
  const request = { asked_at: now.toISOString(), note };
  await writeJsonSetting(`${PREFIX}${personId}`, request);
  return request;
}

export function personaRequestOf(personId: string): Promise<PersonaRequest | null> {
  return readJsonSetting(`${PREFIX}${personId}`, requestSchema.nullable(), 'persona request', null);
}

/** Every open request, by person id (the owner's People page). */
export async function personaRequests(): Promise<Map<string, PersonaRequest>> {
  const rows = await (await getDb()).setting.findMany({ where: { key: { startsWith: PREFIX } } });
  const requests = new Map<string, PersonaRequest>();
  for (const row of rows) {
    const parsed = requestSchema.safeParse(parsedOrNull(row.value));
    if (parsed.success) requests.set(row.key.slice(PREFIX.length), parsed.data);
  }
  return requests;
}

/** Answered (the owner gave a persona) or moot (the person was forgotten). */
export async function dropPersonaRequest(personId: string): Promise<void> {
  await (await getDb()).setting.deleteMany({ where: { key: `${PREFIX}${personId}` } });
}

function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
