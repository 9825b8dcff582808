import { mergeLayerConfig } from '@/lib/config/model-config';
import { testConnection } from '@/lib/backends/test-connection';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { readSettings } from '@/lib/store/settings-repository';
import { testBackendBodySchema } from './schema';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request) => {
  const body = await readJsonBody(request, testBackendBodySchema);
  const stored = body.use_stored_key_of ? (await readSettings()).models[body.use_stored_key_of] : undefined;
  const report = await testConnection(mergeLayerConfig(body.config, stored));
  return Response.json(report);
});
