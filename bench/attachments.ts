// Issue 33, first part: the time to make a 12-megapixel photo ready for a model (decode, turn
// upright, resize to the provider's limits, re-encode without metadata), per provider. The upload
// and the model call around it are not built yet; this is the part that grows with the photo.
import sharp from 'sharp';
import { prepareImage, type ImageProvider } from '@/lib/attachments/image-prep';
import { formatMs, median, percentile } from './stats';

export interface ImagePrepResult {
  provider: ImageProvider;
  inputBytes: number;
  outputBytes: number;
  size: string;
  tokens: number;
  samples: number[];
}

export async function benchImagePrep(options: { samples: number }): Promise<ImagePrepResult[]> {
  // A photo-like 4000 × 3000 JPEG: noise, so the encoder has real work (a flat image compresses to nothing).
  const noise = Buffer.alloc(4000 * 3000 * 3);
  let seed = 1;
  for (let index = 0; index < noise.length; index++) noise[index] = (seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff) >> 23;
  const photo = await sharp(noise, { raw: { width: 4000, height: 3000, channels: 3 } }).blur(1.2).jpeg({ quality: 90 }).withMetadata({ orientation: 1 }).toBuffer();
  const results: ImagePrepResult[] = [];
  for (const provider of ['anthropic', 'openai_compatible'] as const) {
    const samples: number[] = [];
    let last = await prepareImage(photo, provider);
    for (let index = 0; index < options.samples; index++) {
      const started = performance.now();
      last = await prepareImage(photo, provider);
      samples.push(performance.now() - started);
    }
    results.push({ provider, inputBytes: photo.length, outputBytes: last.bytes.length, size: `${last.width} × ${last.height}`, tokens: last.tokens, samples });
  }
  return results;
}

export function imagePrepTable(results: readonly ImagePrepResult[]): string {
  return [
    '| provider | photo in | sent as | bytes in → out | tokens | prepare p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|',
    ...results.map(
      (result) =>
        `| ${result.provider} | 4000 × 3000 JPEG | ${result.size} JPEG | ${(result.inputBytes / 2 ** 20).toFixed(1)} MiB → ${(result.outputBytes / 1024).toFixed(0)} KiB | ${result.tokens} | ${formatMs(median(result.samples))} | ${formatMs(percentile(result.samples, 99))} |`,
    ),
  ].join('\n');
}

if (process.argv[1]?.endsWith('attachments.ts')) console.log(imagePrepTable(await benchImagePrep({ samples: 20 })));
