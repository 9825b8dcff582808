// Whether a layer's model sees images (issue 33), and in which provider's shape they go: known
// from the model's name (lib/backends/model-limits.ts), or learnt when a model refuses them — it
// is then sent the text alone until the process restarts.
import { prepareImageCached, type ImageProvider } from '@/lib/attachments/image-prep';
import type { ImageBlock } from '@/lib/backends/model-backend';
import { seesImages } from '@/lib/backends/model-limits';
import type { LayerModelConfig } from '@/lib/config/model-config';
import { processSlot } from '@/lib/process/process-state';

type ModelIdentity = Pick<LayerModelConfig, 'backend' | 'model' | 'endpoint'>;

const learnedBlind = processSlot('mind.learned-blind', () => new Set<string>()).value;
const modelKey = (config: ModelIdentity) => `${config.backend}|${config.endpoint ?? ''}|${config.model}`;

export function imageProviderOf(config: Pick<LayerModelConfig, 'backend'>): ImageProvider {
  return config.backend === 'openai_compatible' ? 'openai_compatible' : 'anthropic';
}

/** Whether images go to this model: true, or why not. */
export function imagesAllowed(config: ModelIdentity): true | string {
  if (learnedBlind.has(modelKey(config))) return `${config.model} refused images earlier`;
  if (seesImages(config) === false) return `${config.model} does not take images`;
  return true;
}

/** What a tool that shows the model an image needs: the provider's shape, or why it cannot. */
export function imageSight(config: ModelIdentity): { provider: ImageProvider } | { reason: string } {
  const allowed = imagesAllowed(config);
  return allowed === true ? { provider: imageProviderOf(config) } : { reason: allowed };
}

/** A refusal that names images: the model cannot see them. */
export function isImageRefusal(message: string): boolean {
  return /\b(image|images|vision|multimodal|image_url)\b/i.test(message) && /\b(support|supported|accept|allow|unsupported|not|invalid|cannot|can't)\b/i.test(message);
}

export function learnBlind(config: ModelIdentity): void {
  learnedBlind.add(modelKey(config));
}

/** An image as the provider takes it, labelled with where it comes from (the same bytes each time). */
export async function imageBlock(bytes: Uint8Array, sha256: string, provider: ImageProvider, label: string): Promise<ImageBlock> {
  const image = await prepareImageCached(bytes, sha256, provider);
  return { type: 'image', mediaType: image.mimeType, data: image.bytes.toString('base64'), tokens: image.tokens, label };
}
