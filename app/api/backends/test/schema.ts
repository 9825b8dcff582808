import { z } from 'zod';
import { layerModelConfigSchema } from '@/lib/config/model-config';

/** A layer config to test; `use_stored_key_of` borrows the saved key the browser never sees. */
export const testBackendBodySchema = z
  .object({ config: layerModelConfigSchema, use_stored_key_of: z.enum(['c_model', 's_model']).optional() })
  .strict();
