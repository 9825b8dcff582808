// Attaching files through the routes (issue 33, requirement 3): each hostile file is refused or
// neutralised with a clear reason, nothing is written outside the workspace's uploads/, and the
// bytes come back with the type their bytes say — never sniffed, sandboxed, a download unless an image.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fileRoute from '@/app/api/files/[id]/route';
import * as uploadsRoute from '@/app/api/sessions/[id]/uploads/route';
import { defaultModels, defaultParams } from '@/lib/config/model-config';
import { getDb } from '@/lib/store/db';
import { insertSession } from '@/lib/store/sessions-repository';
import { workspaceDirFor } from '@/lib/tools/workspace';
import { claimedPng, pdfWithPages } from '@/test/support/hostile-files';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs();
let sessionId = '';

beforeAll(async () => {
  sessionId = randomUUID();
  await insertSession({ id: sessionId, name: 'files', personaName: 'p', personaHash: 'h', models: defaultModels, params: defaultParams, status: 'active' });
});
afterAll(() => {
  delete process.env.AGENTCSD_UPLOAD_MAX_MB;
});

type FileJson = { id: string; name: string; mime_type: string; file_kind: string; path: string; note: string | null; bytes: number; sha256: string; width: number | null };

async function upload(content: Buffer | string, name: string, type = '', id = sessionId) {
  const form = new FormData();
  form.append('file', new File([typeof content === 'string' ? content : new Uint8Array(content)], name, { type }));
  const response = await uploadsRoute.POST(new Request(`http://127.0.0.1:3000/api/sessions/${id}/uploads`, { method: 'POST', body: form }), { params: Promise.resolve({ id }) });
  return { status: response.status, json: (await response.json()) as { file: FileJson; error: { code: string; message: string } } };
}

const fetchFile = (id: string) => fileRoute.GET(new Request(`http://127.0.0.1:3000/api/files/${id}`), { params: Promise.resolve({ id }) });
const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } });

/** Every file under the data folder's parent, outside this session's workspace. */
function filesOutsideWorkspace(): string[] {
  const workspace = workspaceDirFor(sessionId);
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const absolute = path.join(folder, entry.name);
      if (absolute === workspace) continue;
      if (entry.isDirectory()) walk(absolute);
      else found.push(absolute);
    }
  };
  walk(dirs.root);
  return found.filter((file) => !/agentcsd\.(db|lock)|\.db-(wal|shm)$|secret\.key$/.test(file));
}

describe('attaching a file', () => {
  it('a photo is kept upright and without its EXIF/GPS, served inline as what it is', async () => {
    const photo = await solid(640, 480).jpeg().withExif({ IFD0: { Make: 'Camera' }, IFD3: { GPSLatitudeRef: 'N' } }).withMetadata({ orientation: 6 }).toBuffer();
    const { status, json } = await upload(photo, 'holiday.jpg', 'image/jpeg');
    expect(status).toBe(201);
    expect(json.file).toMatchObject({ name: 'holiday.jpg', mime_type: 'image/jpeg', file_kind: 'image', path: 'uploads/holiday.jpg', width: 480, note: null });
    const stored = fs.readFileSync(path.join(workspaceDirFor(sessionId), 'uploads', 'holiday.jpg'));
    expect((await sharp(stored).metadata()).exif).toBeUndefined();
    const served = await fetchFile(json.file.id);
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toContain('sandbox');
    expect(served.headers.get('content-disposition')).toMatch(/^inline/);
    expect(Buffer.from(await served.arrayBuffer()).equals(stored)).toBe(true);
    // The same name again is kept beside it, never over it.
    expect((await upload(photo, 'holiday.jpg', 'image/jpeg')).json.file.name).toBe('holiday (2).jpg');
  });

  it('hostile files: paths in names, control characters, polyglots, SVG with script, lying types, a PDF with JavaScript — each neutralised, nothing outside uploads/', async () => {
    const before = filesOutsideWorkspace();
    const png = await solid(16, 16).png().toBuffer();
    const escaped = await upload(png, '../../../../etc/cron.d/evil.png', 'image/png');
    expect(escaped.json.file).toMatchObject({ name: 'evil.png', path: 'uploads/evil.png' });
    expect((await upload(png, 'C:\\Windows\\system32\\x.png')).json.file.name).toBe('x.png');
    expect((await upload(png, 'bad\u0000na\nme\u202E.png', 'image/png')).json.file.name).toBe('badname.png');

    const polyglot = await upload(Buffer.concat([png, Buffer.from('<html><script>alert(document.cookie)</script></html>')]), 'cat.png', 'image/png');
    const stored = fs.readFileSync(path.join(workspaceDirFor(sessionId), polyglot.json.file.path));
    expect(stored.includes(Buffer.from('<script'))).toBe(false);

    const svg = await upload('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'logo.svg', 'image/svg+xml');
    expect(svg.json.file).toMatchObject({ file_kind: 'text', mime_type: 'text/plain', note: 'an SVG is kept as a file, not shown as an image (it can carry script)' });
    const servedSvg = await fetchFile(svg.json.file.id);
    expect([servedSvg.headers.get('content-type'), servedSvg.headers.get('content-disposition')?.split(';')[0]]).toEqual(['text/plain; charset=utf-8', 'attachment']);

    const lie = await upload('<html><body onload="steal()"></body></html>', 'photo.png', 'image/png');
    expect(lie.json.file).toMatchObject({ file_kind: 'text', mime_type: 'text/plain', note: 'sent as image/png, but the file is not an image' });

    const pdf = await upload(pdfWithPages(1, { script: true }), 'invoice.png', 'image/png');
    expect(pdf.json.file).toMatchObject({
      name: 'invoice.pdf',
      file_kind: 'pdf',
      mime_type: 'application/pdf',
      note: 'sent as image/png, but the file is application/pdf; it carries JavaScript: never opened here, the model reads its text only',
    });
    const servedPdf = await fetchFile(pdf.json.file.id);
    expect([servedPdf.headers.get('content-type'), servedPdf.headers.get('content-disposition')?.split(';')[0]]).toEqual(['application/pdf', 'attachment']);

    const long = await upload(pdfWithPages(10_000), 'manual.pdf', 'application/pdf');
    expect(long.json.file).toMatchObject({ file_kind: 'pdf', note: '10,000 pages: the model reads the text of the first 50' });
    const broken = await upload('%PDF-1.7\n1 0 obj << /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >> endobj\n%%EOF', 'broken.pdf', 'application/pdf');
    expect([broken.status, broken.json.error?.code, broken.json.error?.message]).toEqual([422, 'unprocessable', expect.stringMatching(/^broken\.pdf was refused: not a PDF that can be read/)]);

    expect(filesOutsideWorkspace()).toEqual(before);
    const names = fs.readdirSync(path.join(workspaceDirFor(sessionId), 'uploads'));
    expect(names.every((name) => !name.includes('/') && !/[\u0000-\u001f]/.test(name))).toBe(true);
  });

  it('a decompression bomb is refused (422) and nothing is kept; past the size cap a 413; bad requests a clear 4xx', async () => {
    const bomb = claimedPng(60_000, 60_000);
    const rows = async () => (await getDb()).upload.count({ where: { sessionId } });
    const count = await rows();
    const refused = await upload(bomb, 'bomb.png', 'image/png');
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: 'unprocessable', message: expect.stringMatching(/^bomb\.png was refused: .*(pixel limit|megapixels)/) });
    expect(await rows()).toBe(count);
    expect(fs.existsSync(path.join(workspaceDirFor(sessionId), 'uploads', 'bomb.png'))).toBe(false);

    process.env.AGENTCSD_UPLOAD_MAX_MB = '1';
    const big = await upload(Buffer.alloc(2 * 1024 * 1024, 65), 'big.txt', 'text/plain');
    expect([big.status, big.json.error.code]).toEqual([413, 'payload_too_large']);
    delete process.env.AGENTCSD_UPLOAD_MAX_MB;

    const json = await uploadsRoute.POST(new Request('http://127.0.0.1:3000/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), { params: Promise.resolve({ id: sessionId }) });
    expect(json.status).toBe(415);
    const form = new FormData();
    form.append('note', 'no file here');
    expect((await uploadsRoute.POST(new Request('http://127.0.0.1:3000/x', { method: 'POST', body: form }), { params: Promise.resolve({ id: sessionId }) })).status).toBe(400);
    expect((await upload('x', 'a.txt', 'text/plain', randomUUID())).status).toBe(404);
    expect((await fetchFile(randomUUID())).status).toBe(404);
    expect((await fetchFile('../../etc/passwd')).status).toBe(404);
    expect(await rows()).toBe(count);
  });
});
