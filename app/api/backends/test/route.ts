// "Test connection": one tiny real call. Some OpenAI-compatible servers answer any model name while
// listing only what they hold, and the home page counts only listed models (issue 75 §9): a success
// for a model the server does not list says so instead of a plain green.
import { createBackend } from '@/lib/backends/create-backend';
import { testConnection } from '@/lib/backends/test-connection';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { resolveLayerConfig } from '../resolve-layer-config';
import { testBackendBodySchema } from './schema';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request) => {
  const body = await readJsonBody(request, testBackendBodySchema);
  const config = await resolveLayerConfig(body);
  const report = await testConnection(config);
  if (!report.ok || config.backend !== 'openai_compatible') return Response.json(report);
  const listed = await createBackend(config)
    .listModels?.(AbortSignal.timeout(10_000))
    .then((models) => models.some((model) => model.id === config.model), () => null);
  if (listed !== false) return Response.json(report);
  return Response.json({ ...report, warning: `The server answered, but it does not list “${config.model}” among its models: it may have answered with another one, and the home page counts only listed models. Pick one with Fetch models.` });
});
