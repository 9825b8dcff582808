import { handle } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';

export const dynamic = 'force-dynamic';

/**
 * The Cluster view (ARCHITECTURE §18): the processes sharing this PostgreSQL, each with its
 * declared capacity, the active sessions it holds and its last heartbeat, and the moves of the last
 * hour. Alone (SQLite, or one process), `clustered` is false and every mind runs in this process.
 */
export const GET = handle(async () => {
  const view = await getOrchestrator().clusterView();
  return Response.json(view ? { clustered: true, ...view } : { clustered: false, members: [], moves: [] });
});
