// The mind can see (issue 33), as a person uses it: attach a picture with the button, paste
// another, send; the bubble shows thumbnails; the model was shown the images with the words
// (the fake says how many it got); it looks again with view_image — the Internal panel shows the
// thumbnail — and shows the picture back in the chat with show_file. A file the server refuses
// says why, and nothing is sent.
import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { fakeModels, fakeParams } from './support/fake-models';
import { HomePage, SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

async function chart(): Promise<Buffer> {
  const bars = [60, 140, 100, 180].map((height, index) => `<rect x="${30 + index * 70}" y="${220 - height}" width="50" height="${height}" fill="#4f46e5"/>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="white"/>${bars}<line x1="20" y1="220" x2="310" y2="220" stroke="black"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

test('attach and paste images: thumbnails in the chat, the model sees them, view_image in the Internal panel, show_file back in the chat', async ({ page, request }) => {
  test.setTimeout(120_000);
  const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
  expect(reset.status(), await reset.text()).toBe(200);
  const home = new HomePage(page);
  await home.goto();
  await home.createSession({ name: 'Pictures', persona: 'iris' });
  const session = new SessionPage(page);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

  // The button: a PNG chart.
  await session.chat.getByLabel('Attach files').setInputFiles({ name: 'sales chart.png', mimeType: 'image/png', buffer: await chart() });
  await expect(session.chat.getByTestId('pending-file')).toHaveCount(1);
  // A paste: a second picture from the clipboard.
  const photo = (await sharp({ create: { width: 200, height: 120, channels: 3, background: '#0ea5e9' } }).jpeg().toBuffer()).toString('base64');
  await session.input.focus();
  await page.evaluate(async (base64) => {
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], 'pasted.jpg', { type: 'image/jpeg' }));
    document.querySelector('#chat-input')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, photo);
  await expect(session.chat.getByTestId('pending-file')).toHaveCount(2);
  await session.send('What do these show? [[look]]');

  const mine = session.messages.filter({ hasText: 'What do these show?' });
  await expect(mine.getByTestId('file-thumbnail')).toHaveCount(2);
  await expect(mine.getByRole('img', { name: 'sales chart.png' })).toHaveJSProperty('complete', true);
  expect(await mine.getByRole('img', { name: 'sales chart.png' }).evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(320);

  // The model was shown both images with the words; it looked again and showed one back.
  await expect(session.chat.getByText('I got 2 images with your message; looking again and showing it back.')).toBeVisible();
  const viewed = session.toolActivity.getByRole('listitem').filter({ hasText: 'view_image' });
  await expect(viewed.getByTestId('file-thumbnail')).toBeVisible({ timeout: 20_000 });
  const reply = session.messages.filter({ hasText: 'Here is what the tools said' });
  await expect(reply.getByTestId('file-thumbnail')).toBeVisible();
  await expect(reply).toContainText('Here is uploads/sales chart.png (320 × 240');
  await saveScreenshot(page, 'session-images');

  // After a reload everything is still there.
  await page.reload();
  await expect(mine.getByTestId('file-thumbnail')).toHaveCount(2);
  await expect(reply.getByTestId('file-thumbnail')).toBeVisible();
  await expect(viewed.getByTestId('file-thumbnail')).toBeVisible();
});

test('a refused upload says why and sends nothing; an SVG goes as a file, not a picture', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  await home.createSession({ name: 'Refusals', persona: 'iris' });
  const session = new SessionPage(page);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

  await session.chat.getByLabel('Attach files').setInputFiles({ name: 'broken.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.7\nnot really\n%%EOF') });
  await expect(page.getByRole('alert').filter({ hasText: 'broken.pdf was refused: not a PDF that can be read' })).toBeVisible();
  await expect(session.chat.getByTestId('pending-file')).toHaveCount(0);

  await session.chat.getByLabel('Attach files').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') });
  await expect(session.chat.getByText('logo.svg: an SVG is kept as a file, not shown as an image (it can carry script)')).toBeVisible();
  await session.send('my logo');
  const mine = session.messages.filter({ hasText: 'my logo' });
  await expect(mine.getByTestId('file-chip')).toContainText('logo.svg');
  await expect(mine.getByTestId('file-thumbnail')).toHaveCount(0);
});
