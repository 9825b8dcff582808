// Issue 33: the time from a pasted 12-megapixel photo to the model call — the upload's part
// (decide what it is, turn it upright, re-encode it whole without metadata) and the turn's part
// (resize to the provider's limits, re-encode) — per provider. The store write and the HTTP around
// them are the same as for any message and measured elsewhere.
import sharp from 'sharp';
import { prepareImage, type ImageProvider } from '@/lib/attachments/image-prep';
import { prepareUpload } from '@/lib/http/uploads';
import { formatMs, median, percentile } from './stats';

export interface ImagePrepResult {
  provider: ImageProvider;
  inputBytes: number;
  outputBytes: number;
  size: string;
  tokens: number;
  /** The turn's part: resize and re-encode for the provider. */
  samples: number[];
  /** Paste to model call: the upload's part, then the turn's. */
  pasteToCall: number[];
}

/** A photo-like 4000 × 3000 JPEG: noise, so the encoder has real work (a flat image compresses to nothing). */
export async function twelveMegapixelPhoto(): Promise<Buffer> {
  const noise = Buffer.alloc(4000 * 3000 * 3);
  let seed = 1;
  for (let index = 0; index < noise.length; index++) noise[index] = (seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff) >> 23;
  return sharp(noise, { raw: { width: 4000, height: 3000, channels: 3 } }).blur(1.2).jpeg({ quality: 90 }).withMetadata({ orientation: 1 }).toBuffer();
}

export async function benchImagePrep(options: { samples: number }): Promise<ImagePrepResult[]> {
  const photo = await twelveMegapixelPhoto();
  const results: ImagePrepResult[] = [];
  for (const provider of ['anthropic', 'openai_compatible'] as const) {
    const samples: number[] = [];
    const pasteToCall: number[] = [];
    let last = await prepareImage(photo, provider);
    for (let index = 0; index < options.samples; index++) {
      const started = performance.now();
      last = await prepareImage(photo, provider);
      samples.push(performance.now() - started);
      const pasted = performance.now();
      const kept = await prepareUpload({ name: 'photo.jpg', claimedType: 'image/jpeg', bytes: photo });
      await prepareImage(kept.bytes, provider);
      pasteToCall.push(performance.now() - pasted);
    }
    results.push({ provider, inputBytes: photo.length, outputBytes: last.bytes.length, size: `${last.width} × ${last.height}`, tokens: last.tokens, samples, pasteToCall });
  }
  return results;
}

export function imagePrepTable(results: readonly ImagePrepResult[]): string {
  return [
    '| provider | photo in | sent as | bytes in → out | tokens | prepare p50 ms | p99 ms | paste → model call p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (result) =>
        `| ${result.provider} | 4000 × 3000 JPEG | ${result.size} JPEG | ${(result.inputBytes / 2 ** 20).toFixed(1)} MiB → ${(result.outputBytes / 1024).toFixed(0)} KiB | ${result.tokens} | ${formatMs(median(result.samples))} | ${formatMs(percentile(result.samples, 99))} | ${formatMs(median(result.pasteToCall))} | ${formatMs(percentile(result.pasteToCall, 99))} |`,
    ),
  ].join('\n');
}

if (process.argv[1]?.endsWith('attachments.ts')) console.log(imagePrepTable(await benchImagePrep({ samples: 20 })));
