// view_image and show_file on their own (issue 33): what a model that cannot see is told, a
// decompression bomb, a file past the cap, an image as the provider takes it, and what show_file
// makes of an SVG (a file, never an image).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { insertSession } from '@/lib/store/sessions-repository';
import { imageTools } from '@/lib/tools/image-tools';
import type { ToolRunContext } from '@/lib/tools/tool-types';
import { claimedPng } from '@/test/support/hostile-files';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();
const [viewImage, showFile] = imageTools;
let workspace: string;
const sessionId = 'a1b2c3d4-0000-4000-8000-000000000001';
const context = (sight: ToolRunContext['sight']): ToolRunContext => ({ sessionId, workspaceDir: workspace, signal: AbortSignal.timeout(30_000), sight });

beforeAll(async () => {
  await insertSession({ id: sessionId, name: 'looks', personaName: 'p', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'active' });
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-image-tools-')));
  fs.writeFileSync(path.join(workspace, 'photo.jpg'), await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#808080' } }).jpeg().withExif({ IFD0: { Artist: 'someone' } }).toBuffer());
  fs.writeFileSync(path.join(workspace, 'bomb.png'), claimedPng(60_000, 60_000));
  fs.writeFileSync(path.join(workspace, 'huge.png'), Buffer.alloc(21 * 1024 * 1024));
  fs.writeFileSync(path.join(workspace, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
});
afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

describe('view_image', () => {
  it('a photo goes as the provider takes it: within its size, re-encoded, no metadata', async () => {
    const anthropic = await viewImage.run({ path: 'photo.jpg' }, context({ provider: 'anthropic' }));
    const openai = await viewImage.run({ path: 'photo.jpg' }, context({ provider: 'openai_compatible' }));
    const sizeOf = async (data: string) => sharp(Buffer.from(data, 'base64')).metadata();
    const [a, o] = [await sizeOf(anthropic.images![0]!.data), await sizeOf(openai.images![0]!.data)];
    expect([a.width, a.height, a.exif]).toEqual([1238, 928, undefined]);
    expect([o.width, o.height]).toEqual([1024, 768]);
    expect(anthropic.images![0]!.tokens).toBe(Math.ceil((1238 * 928) / 750));
    expect(anthropic.content).toMatch(/^Here is photo\.jpg \(4000 × 3000, about 1532 tokens\)\./);
  });

  it('refuses for a model that cannot see, a bomb, and a file past the cap', async () => {
    expect(await viewImage.run({ path: 'photo.jpg' }, context({ reason: 'gpt-oss:20b does not take images' }))).toEqual({ isError: true, content: 'You cannot be shown images: gpt-oss:20b does not take images' });
    expect(await viewImage.run({ path: 'bomb.png' }, context({ provider: 'anthropic' }))).toMatchObject({ isError: true, content: expect.stringMatching(/^Refused: .*(pixel limit|megapixels)/) });
    expect(await viewImage.run({ path: 'huge.png' }, context({ provider: 'anthropic' }))).toEqual({ isError: true, content: 'huge.png is 21.0 MB: more than the 20 MB these tools read' });
  });
});

describe('show_file', () => {
  it('an SVG is shown as a file, never as an image', async () => {
    const shown = await showFile.run({ path: 'logo.svg' }, context(undefined));
    expect(shown.content).toMatch(/^Shown in the chat below your reply:\n\[shown file: \/workspace\/logo\.svg — text, text\/plain, \d+ B · file [0-9a-f-]{36}\]$/);
  });
});
