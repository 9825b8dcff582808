import { mergeModels, toPublicModels } from '@/lib/config/model-config';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { forgetAvailability } from '@/lib/setup/backend-availability';
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
    models: mergeModels(body, stored.models),
    params: body.params,
  };
  await writeSettings(settings);
  forgetAvailability(); // the home page's "can the defaults answer?" is about the old ones
  return Response.json({ settings: settingsJson(settings) });
});
