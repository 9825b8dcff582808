import { testConnection } from '@/lib/backends/test-connection';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { resolveLayerConfig } from '../resolve-layer-config';
import { testBackendBodySchema } from './schema';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request) => {
  const body = await readJsonBody(request, testBackendBodySchema);
  const report = await testConnection(await resolveLayerConfig(body));
  return Response.json(report);
});
