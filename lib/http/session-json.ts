// The public JSON shape of a session (REST contract, ARCHITECTURE §8): snake_case, keys hidden.
import { toPublicModels } from '@/lib/config/model-config';
import type { SessionRecord } from '@/lib/store/sessions-repository';

export function sessionJson(session: SessionRecord) {
  return {
    id: session.id,
    name: session.name,
    persona: session.personaName,
    persona_hash: session.personaHash,
    status: session.status,
    created_at: session.createdAt.toISOString(),
    last_activity_at: session.lastActivityAt.toISOString(),
    models: toPublicModels(session.models),
    params: session.params,
    parent_session_id: session.parentSessionId ?? null,
    untrusted_source: session.untrustedSource ?? null,
  };
}
export type SessionJson = ReturnType<typeof sessionJson>;
