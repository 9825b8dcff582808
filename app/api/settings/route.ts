import { mergeLayerConfig, toPublicModels } from '@/lib/config/model-config';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { readSettings, writeSettings, type AppSettings } from '@/lib/store/settings-repository';
import { putSettingsBodySchema } from './schema';

export const dynamic = 'force-dynamic';

function settingsJson(settings: AppSettings) {
  return { ...toPublicModels(settings.models), params: settings.params };
}

export const GET = handle(async () => {
  return Response.json({ settings: settingsJson(await readSettings()) });
});

export const PUT = handle(async (request) => {
  const body = await readJsonBody(request, putSettingsBodySchema);
  const stored = await readSettings();
  const settings: AppSettings = {
    models: {
      c_model: mergeLayerConfig(body.c_model, stored.models.c_model),
      s_model: mergeLayerConfig(body.s_model, stored.models.s_model),
    },
    params: body.params,
  };
  await writeSettings(settings);
  return Response.json({ settings: settingsJson(settings) });
});
