// The public JSON shape of a session (REST contract, ARCHITECTURE §8): snake_case, keys hidden.
import { toPublicModels } from '@/lib/config/model-config';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import { restLimits } from '@/lib/mind/rest';

export function sessionJson(session: SessionRecord) {
  return {
    id: session.id,
    name: session.name,
    persona: session.personaName,
    persona_hash: session.personaHash,
    status: session.status,
    /** Active, but nothing new for its dormancy's days: its mind makes no call until something arrives (issue 74). */
    dormant: session.status === 'active' && Date.now() - session.lastActivityAt.getTime() >= restLimits(session.params).dormantAfterMs,
    created_at: session.createdAt.toISOString(),
    last_activity_at: session.lastActivityAt.toISOString(),
    models: toPublicModels(session.models),
    params: session.params,
    parent_session_id: session.parentSessionId ?? null,
    untrusted_source: session.untrustedSource ?? null,
  };
}
export type SessionJson = ReturnType<typeof sessionJson>;
