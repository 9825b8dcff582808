// The installable app's icons (issue 50), drawn from public/icons/icon.svg: run again after
// editing the drawing (`npx tsx scripts/make-icons.ts`). A maskable icon keeps its drawing inside
// the middle 80%, the safe zone a phone's mask may crop to.
import path from 'node:path';
import sharp from 'sharp';

const folder = path.resolve('public/icons');
const svg = path.join(folder, 'icon.svg');
for (const size of [192, 512]) await sharp(svg, { density: 300 }).resize(size, size).png().toFile(path.join(folder, `icon-${size}.png`));
const inner = await sharp(svg, { density: 300 }).resize(410, 410).png().toBuffer();
await sharp({ create: { width: 512, height: 512, channels: 4, background: '#3730a3' } })
  .composite([{ input: inner, gravity: 'center' }])
  .png()
  .toFile(path.join(folder, 'maskable-512.png'));
console.log('icons written to', folder);
