// An image made ready for a model (issue 33, requirement 1): decoded with a pixel limit (a
// decompression bomb is refused before it is expanded), turned upright by its EXIF orientation,
// resized to the provider's limits, and re-encoded — which drops every metadata block (EXIF, GPS,
// XMP, comments) and anything appended to the file (a PNG+HTML polyglot comes out a plain PNG).
// GIFs keep their first frame, as PNG. The token cost is the provider's own formula, so the
// context budget counts an image like the text around it.
import { errorText } from '@/lib/errors/error-text';
import { processSlot } from '@/lib/process/process-state';

export type ImageProvider = 'anthropic' | 'openai_compatible';

type Sharp = typeof import('sharp').default;
/** sharp (libvips, ~28 MiB resident) is loaded with the first image, not when the app starts (the loader keeps it). */
export function loadSharp(): Promise<Sharp> {
  return import('sharp').then((module) => module.default);
}

export interface ImageLimits {
  /** The longest side after resizing. */
  longSide: number;
  /** At most this many pixels after resizing. */
  maxPixels: number;
  /** OpenAI's high detail: the shorter side scaled down to this after the square fit. */
  shortSide?: number;
}

/**
 * Anthropic (and the Claude Code CLI, which calls it): images over 1568 px on the long side or
 * ~1.15 megapixels are scaled down by the API anyway, so they are sent at that size. OpenAI's high
 * detail fits 2048 × 2048, then 768 on the short side; local vision servers take the same shape.
 */
export const imageLimits: Record<ImageProvider, ImageLimits> = {
  anthropic: { longSide: 1568, maxPixels: 1_150_000 },
  openai_compatible: { longSide: 2048, maxPixels: 2048 * 768, shortSide: 768 },
};

/** Larger inputs are refused undecoded: 40 megapixels holds any camera's photo, not a bomb. */
export const MAX_INPUT_PIXELS = 40_000_000;

export class ImageRefusedError extends Error {
  readonly code = 'image_refused';
}

export interface PreparedImage {
  bytes: Buffer;
  mimeType: 'image/png' | 'image/jpeg' | 'image/webp';
  width: number;
  height: number;
  /** Input tokens the provider counts for it. */
  tokens: number;
}

/** The size an image is sent at, within the provider's limits (never enlarged). */
export function fitWithin(width: number, height: number, limits: ImageLimits): { width: number; height: number } {
  let scale = Math.min(1, limits.longSide / Math.max(width, height), Math.sqrt(limits.maxPixels / (width * height)));
  if (limits.shortSide) scale = Math.min(scale, limits.shortSide / Math.min(width, height));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

/** Anthropic: width × height / 750. OpenAI high detail: 85 + 170 per 512-px tile. */
export function imageTokens(width: number, height: number, provider: ImageProvider): number {
  if (provider === 'anthropic') return Math.ceil((width * height) / 750);
  return 85 + 170 * Math.ceil(width / 512) * Math.ceil(height / 512);
}

export async function prepareImage(input: Uint8Array, provider: ImageProvider): Promise<PreparedImage> {
  const sharp = await loadSharp();
  const metadata = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
    .metadata()
    .catch((error: unknown) => {
      throw new ImageRefusedError(`not an image that can be read: ${errorText(error)}`);
    });
  const { width, height, format } = metadata;
  if (!width || !height) throw new ImageRefusedError('the image has no size');
  if (width * height > MAX_INPUT_PIXELS) throw new ImageRefusedError(`the image is ${width} × ${height} pixels: more than ${MAX_INPUT_PIXELS / 1_000_000} megapixels`);
  const upright = (metadata.orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
  const size = fitWithin(upright.width, upright.height, imageLimits[provider]);
  const pipeline = sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 }).autoOrient().resize(size.width, size.height, { fit: 'fill' });
  const mimeType: PreparedImage['mimeType'] = format === 'jpeg' ? 'image/jpeg' : format === 'webp' ? 'image/webp' : 'image/png';
  const encoder = mimeType === 'image/jpeg' ? pipeline.jpeg({ quality: 85, mozjpeg: true }) : mimeType === 'image/webp' ? pipeline.webp({ quality: 85 }) : pipeline.png({ compressionLevel: 9 });
  const encoded = await encoder.toBuffer({ resolveWithObject: true }).catch((error: unknown) => {
    throw new ImageRefusedError(`the image could not be decoded: ${errorText(error)}`);
  });
  return { bytes: encoded.data, mimeType, width: encoded.info.width, height: encoded.info.height, tokens: imageTokens(encoded.info.width, encoded.info.height, provider) };
}

/**
 * The image as it is kept (in the workspace, for the chat and the agent's tools): its full size,
 * upright, re-encoded in its own format (a GIF's first frame as PNG) — so no metadata and nothing
 * appended survives.
 */
export async function sanitizeImage(input: Uint8Array): Promise<{ bytes: Buffer; mimeType: PreparedImage['mimeType']; width: number; height: number }> {
  const sharp = await loadSharp();
  const metadata = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
    .metadata()
    .catch((error: unknown) => {
      throw new ImageRefusedError(`not an image that can be read: ${errorText(error)}`);
    });
  const mimeType: PreparedImage['mimeType'] = metadata.format === 'jpeg' ? 'image/jpeg' : metadata.format === 'webp' ? 'image/webp' : 'image/png';
  const pipeline = sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 }).autoOrient();
  const encoder = mimeType === 'image/jpeg' ? pipeline.jpeg({ quality: 92 }) : mimeType === 'image/webp' ? pipeline.webp({ quality: 92 }) : pipeline.png({ compressionLevel: 9 });
  const encoded = await encoder.toBuffer({ resolveWithObject: true }).catch((error: unknown) => {
    throw new ImageRefusedError(`the image could not be decoded: ${errorText(error)}`);
  });
  return { bytes: encoded.data, mimeType, width: encoded.info.width, height: encoded.info.height };
}

/**
 * Prepared images by content and provider: a turn's steps, and later turns that show the same
 * image, send the very same bytes (the encoder is deterministic too, so a restart makes them
 * again byte for byte). Least recently used out beyond `PREPARED_CACHE_BYTES`.
 */
const PREPARED_CACHE_BYTES = 64 * 1024 * 1024;
const cache = processSlot('attachments.prepared-images', () => ({ images: new Map<string, Promise<PreparedImage>>(), sizes: new Map<string, number>(), bytes: 0 })).value;
const { images: prepared, sizes: preparedSizes } = cache;

export function prepareImageCached(input: Uint8Array, sha256: string, provider: ImageProvider): Promise<PreparedImage> {
  const key = `${sha256}:${provider}`;
  const hit = prepared.get(key);
  if (hit) {
    prepared.delete(key);
    prepared.set(key, hit);
    return hit;
  }
  const made = prepareImage(input, provider);
  prepared.set(key, made);
  made.then(
    (image) => {
      if (prepared.get(key) !== made) return;
      preparedSizes.set(key, image.bytes.length);
      cache.bytes += image.bytes.length;
      for (const [oldest] of prepared) {
        if (cache.bytes <= PREPARED_CACHE_BYTES || oldest === key) break;
        cache.bytes -= preparedSizes.get(oldest) ?? 0;
        preparedSizes.delete(oldest);
        prepared.delete(oldest);
      }
    },
    () => prepared.delete(key),
  );
  return made;
}
