import { z } from 'zod';
import { layerModelConfigSchema, sessionParamsSchema } from '@/lib/config/model-config';

export const putSettingsBodySchema = z
  .object({ c_model: layerModelConfigSchema, s_model: layerModelConfigSchema, params: sessionParamsSchema })
  .strict();
