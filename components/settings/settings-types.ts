import type { PublicLayerModelConfig, SessionParams } from '@/lib/config/model-config';

export interface SettingsJson {
  c_model: PublicLayerModelConfig;
  s_model: PublicLayerModelConfig;
  params: SessionParams;
}
