import { createBackend } from '@/lib/backends/create-backend';
import { ApiError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { resolveLayerConfig } from '../resolve-layer-config';
import { testBackendBodySchema } from '../test/schema';
import { errorText } from '@/lib/errors/error-text';

export const dynamic = 'force-dynamic';

/** The models a server offers (POST: the config may carry a key). */
export const POST = handle(async (request) => {
  const body = await readJsonBody(request, testBackendBodySchema);
  const backend = createBackend(await resolveLayerConfig(body));
  if (!backend.listModels) throw new ApiError('validation_failed', 'This backend cannot list its models; type the model name');
  try {
    return Response.json({ models: await backend.listModels(AbortSignal.timeout(15_000)) });
  } catch (error) {
    return Response.json({ models: [], error: { message: errorText(error) } });
  }
});
