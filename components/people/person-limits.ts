// One field of a person's limits changed from their card (quiet hours, personas given): the others
// kept, an emptied field dropped, no limits at all sent as null (the role's defaults).
import { apiFetch } from '@/components/api-client';

export function savePersonLimit(personId: string, limits: Record<string, unknown> | null, field: string, value: unknown | null): Promise<unknown> {
  const { [field]: _old, ...rest } = limits ?? {};
  const merged = value === null ? rest : { ...rest, [field]: value };
  return apiFetch(`/api/people/${encodeURIComponent(personId)}`, { method: 'PATCH', body: { limits: Object.keys(merged).length ? merged : null } });
}
