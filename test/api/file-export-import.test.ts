// Files survive what sessions survive (issue 33, requirement 4): the JSON export embeds every file
// with its SHA-256, the Markdown links it; import brings each back as a new upload (checked like
// one) and points every line that named it at the new copy; an embedded file that lies about its
// hash, a bomb, or a name with a path is refused or neutralised and a refusal writes nothing. A
// workspace that lost an upload is mended from the store's copy (a restart, another machine).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fileRoute from '@/app/api/files/[id]/route';
import * as exporter from '@/app/api/sessions/[id]/export/route';
import * as importer from '@/app/api/sessions/import/route';
import * as uploadsRoute from '@/app/api/sessions/[id]/uploads/route';
import { fileLine, fileLinesIn } from '@/lib/attachments/file-line';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { getDb } from '@/lib/store/db';
import { insertTurn, insertUserMessage } from '@/lib/store/mind-repository';
import { attachUploads, insertUpload, type UploadRecord } from '@/lib/store/uploads-repository';
import { workspaceDirFor } from '@/lib/tools/workspace';
import { claimedPng, pdfWithPages } from '@/test/support/hostile-files';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs({ personas: { tester: '# Tester\n' } });
beforeAll(async () => {
  await startOrchestrator({ createBackend: () => new ScriptedBackend([], { text: '', holdAfterChunks: 0 }) });
});
afterAll(async () => {
  await stopOrchestrator();
});

const base = 'http://127.0.0.1:3000';
const idContext = (id: string) => ({ params: Promise.resolve({ id }) });

async function upload(sessionId: string, content: Buffer, name: string, type: string) {
  const form = new FormData();
  form.append('file', new File([new Uint8Array(content)], name, { type }));
  const response = await uploadsRoute.POST(new Request(`${base}/x`, { method: 'POST', body: form }), idContext(sessionId));
  expect(response.status).toBe(201);
  const file = ((await response.json()) as { file: Record<string, unknown> }).file;
  return (await getDb()).upload.findUniqueOrThrow({ where: { id: file.id as string } }) as Promise<UploadRecord>;
}

async function sessionWithFiles() {
  const session = await getOrchestrator().createSession({ persona: 'tester' });
  await getOrchestrator().pauseSession(session.id);
  const chart = await upload(session.id, await sharp({ create: { width: 120, height: 80, channels: 3, background: '#2255aa' } }).png().toBuffer(), 'chart.png', 'image/png');
  const report = await upload(session.id, pdfWithPages(3), 'report.pdf', 'application/pdf');
  const message = await insertUserMessage({ sessionId: session.id, content: `Look\n\n${fileLine(chart)}\n${fileLine(report)}`, cycleNumber: 1 });
  await attachUploads(session.id, [chart.id, report.id], message.id);
  await insertTurn({ sessionId: session.id, turnId: 'turn-1', cycleNumber: 1, spontaneous: false, loud: `Here it is.\n\n${fileLine(chart, 'shown')}`, quiet: 'caption: blue chart', interrupted: false, answeredMessageIds: [message.id] });
  return { session, chart, report };
}

const exported = async (id: string, format = 'json') => exporter.GET(new Request(`${base}/api/sessions/${id}/export?format=${format}`), idContext(id));
const importBody = (body: unknown) => importer.POST(new Request(`${base}/api/sessions/import`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), undefined);
const served = async (id: string) => fileRoute.GET(new Request(`${base}/api/files/${id}`), idContext(id));

describe('files in exports', () => {
  it('JSON embeds each file with its hash; Markdown links it; import brings them back under new ids, every line pointed at them', async () => {
    const { session, chart, report } = await sessionWithFiles();
    const json = (await (await exported(session.id)).json()) as { version: number; files: { id: string; sha256: string; data: string }[] };
    expect(json.version).toBe(3);
    expect(json.files.map((file) => file.id)).toEqual([chart.id, report.id]);
    for (const file of json.files) expect(file.sha256).toBe((await import('node:crypto')).createHash('sha256').update(Buffer.from(file.data, 'base64')).digest('hex'));
    const markdown = await (await exported(session.id, 'md')).text();
    expect(markdown).toContain(`> 📎 [chart.png](/api/files/${chart.id}) — image, image/png, 120 × 80`);

    const response = await importBody(json);
    expect(response.status).toBe(201);
    const imported = ((await response.json()) as { session: { id: string } }).session.id;
    const db = await getDb();
    const files = await db.upload.findMany({ where: { sessionId: imported }, orderBy: { createdAt: 'asc' } });
    expect(files.map((file) => [file.name, file.kind, file.path])).toEqual([
      ['chart.png', 'image', 'uploads/chart.png'],
      ['report.pdf', 'pdf', 'uploads/report.pdf'],
    ]);
    expect(files.map((file) => file.id)).not.toContain(chart.id);
    const messages = await db.message.findMany({ where: { sessionId: imported, tag: { in: ['ED_user', 'ED_agent', 'ID_loud'] } }, orderBy: { id: 'asc' } });
    const named = messages.flatMap((message) => fileLinesIn(message.content).map((line) => line.id));
    expect(new Set(named)).toEqual(new Set(files.map((file) => file.id)));
    const bytes = Buffer.from(await (await served(files[0]!.id)).arrayBuffer());
    expect(await sharp(bytes).metadata()).toMatchObject({ width: 120, height: 80, format: 'png' });
    expect(fs.readFileSync(path.join(workspaceDirFor(imported), 'uploads', 'report.pdf')).equals(pdfWithPages(3))).toBe(true);
  });

  it('refuses an embedded file whose bytes do not match its hash, or a bomb; writes nothing; a name with a path is only a name', async () => {
    const { session } = await sessionWithFiles();
    const json = (await (await exported(session.id)).json()) as { files: { name: string; sha256: string; data: string; path: string }[] };
    const before = await (await getDb()).session.count();

    const lying = structuredClone(json);
    lying.files[1]!.data = pdfWithPages(4).toString('base64');
    const refused = await importBody(lying);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('file report.pdf: its bytes do not match its sha256');

    const bomb = structuredClone(json);
    const bombBytes = claimedPng(60_000, 60_000);
    bomb.files[0] = { ...bomb.files[0]!, data: bombBytes.toString('base64'), sha256: (await import('node:crypto')).createHash('sha256').update(bombBytes).digest('hex') };
    const bombRefused = await importBody(bomb);
    expect(bombRefused.status).toBe(400);
    expect(((await bombRefused.json()) as { error: { message: string } }).error.message).toMatch(/^file chart\.png was refused: .*(pixel limit|megapixels)/);
    expect(await (await getDb()).session.count()).toBe(before);

    const pathy = structuredClone(json);
    pathy.files[1] = { ...pathy.files[1]!, name: '../../../../etc/cron.d/report.pdf', path: '../../../../etc/cron.d/report.pdf' };
    const accepted = await importBody(pathy);
    expect(accepted.status).toBe(201);
    const id = ((await accepted.json()) as { session: { id: string } }).session.id;
    expect((await (await getDb()).upload.findMany({ where: { sessionId: id } })).map((file) => file.path).sort()).toEqual(['uploads/chart.png', 'uploads/report.pdf']);
    expect(fs.existsSync('/etc/cron.d/report.pdf')).toBe(false);
  });

  it('a workspace that lost an upload is mended from the store: the file is served and put back', async () => {
    const { session, chart } = await sessionWithFiles();
    const where = path.join(workspaceDirFor(session.id), chart.path);
    const original = fs.readFileSync(where);
    fs.rmSync(where);
    const response = await served(chart.id);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(original)).toBe(true);
    expect(fs.readFileSync(where).equals(original)).toBe(true);
    // Changed by the agent since: the person's file is still served as they sent it; the agent's change stays.
    fs.writeFileSync(where, 'the agent wrote over it');
    expect(Buffer.from(await (await served(chart.id)).arrayBuffer()).equals(original)).toBe(true);
    expect(fs.readFileSync(where, 'utf8')).toBe('the agent wrote over it');
    // A file the agent showed is kept in the workspace only: changed since, it is gone (410), never something else.
    fs.writeFileSync(path.join(workspaceDirFor(session.id), 'plot.png'), original);
    const shown = await insertUpload({ id: randomUUID(), sessionId: session.id, name: 'plot.png', mimeType: 'image/png', kind: 'image', size: original.length, sha256: chart.sha256, path: 'plot.png', width: 120, height: 80, note: 'shown by the agent' });
    expect((await served(shown.id)).status).toBe(200);
    fs.writeFileSync(path.join(workspaceDirFor(session.id), 'plot.png'), '<html>not a plot</html>');
    const changed = await served(shown.id);
    expect([changed.status, ((await changed.json()) as { error: { code: string } }).error.code]).toEqual([410, 'gone']);
  });
});
