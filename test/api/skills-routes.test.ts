// The Skills page's API on the real store and folders (issue 34): import a .zip or a folder's
// files, list, show, enable per persona (its graph), delete; hostile archives (paths outside, a
// zip bomb, links, a name that is not its folder's) refused with the reason and nothing written;
// and a session of a persona with skills gets them in its prompt and the load_skill tool.
import fs from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as skillRoute from '@/app/api/skills/[name]/route';
import * as personaRoute from '@/app/api/skills/[name]/personas/[persona]/route';
import * as skillsRoute from '@/app/api/skills/route';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { ScriptedBackend } from '@/test/support/scripted-backend';
import { folderFingerprint, useTempAppDirs } from '@/test/support/temp-app-dirs';

const skillMd = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nFollow these steps.\n`;
const dirs = useTempAppDirs({ personas: { iris: '# Iris\n', sage: '# Sage\n' }, skills: { 'plan-task': { 'SKILL.md': skillMd('plan-task', 'Plan a task before acting.') } } });
const backend = new ScriptedBackend([], { text: '<ID_loud>Fine.</ID_loud>' });
// A backend that takes tools natively (the CLI's come through the app's MCP endpoint, not here).
const layer = (model: string) => ({ backend: 'openai_compatible' as const, model, max_tokens: 256, endpoint: 'http://127.0.0.1:9/v1' });
const models = { c_model: layer('c'), s_model: layer('s') };

beforeAll(async () => {
  await startOrchestrator({ createBackend: () => backend });
});
afterAll(async () => {
  await stopOrchestrator();
});

const base = 'http://127.0.0.1:3000/api/skills';
const encode = (text: string) => new TextEncoder().encode(text);
async function importForm(fields: Record<string, string | File | File[]>) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) for (const item of Array.isArray(value) ? value : [value]) form.append(key, item);
  const response = await skillsRoute.POST(new Request(base, { method: 'POST', body: form }), undefined);
  return { status: response.status, json: (await response.json()) as { skill?: { name: string; source: string; files: { path: string }[] }; error?: { code: string; message: string } } };
}
const zip = (files: Record<string, Uint8Array>) => new File([zipSync(files)], 'skill.zip', { type: 'application/zip' });
const list = async () => (await (await skillsRoute.GET(new Request(base), undefined)).json()) as { skills: { name: string; source: string; personas: string[] }[]; problems: { folder: string; message: string }[] };

describe('/api/skills', () => {
  it('imports a zipped folder and a folder’s files; lists them with the personas that have them; shows one; deletes it', async () => {
    const zipped = await importForm({ archive: zip({ 'review-code/SKILL.md': encode(skillMd('review-code', 'Review a change for bugs and clarity.')), 'review-code/checklist.md': encode('- names\n- tests\n') }) });
    expect([zipped.status, zipped.json.skill?.name, zipped.json.skill?.files.map((file) => file.path)]).toEqual([201, 'review-code', ['checklist.md']]);
    const folder = await importForm({ files: [new File([skillMd('write-haiku', 'Write a haiku.')], 'write-haiku/SKILL.md')], persona: 'sage' });
    expect([folder.status, folder.json.skill?.source]).toEqual([201, 'persona:sage']);
    expect(fs.existsSync(path.join(dirs.personasDir, 'sage.skills', 'write-haiku', 'SKILL.md'))).toBe(true);

    const listed = await list();
    expect(listed.skills.map((skill) => [skill.name, skill.source, skill.personas])).toEqual([
      ['plan-task', 'global', ['iris', 'sage']],
      ['review-code', 'global', ['iris', 'sage']],
      ['write-haiku', 'persona:sage', ['sage']],
    ]);
    const shown = (await (await skillRoute.GET(new Request(`${base}/review-code`), { params: Promise.resolve({ name: 'review-code' }) })).json()) as { skill: { body: string } };
    expect(shown.skill.body).toBe('# review-code\nFollow these steps.');

    expect((await importForm({ archive: zip({ 'SKILL.md': encode(skillMd('review-code', 'Again.')) }) })).status).toBe(409);
    expect((await importForm({ archive: zip({ 'SKILL.md': encode(skillMd('review-code', 'Replaced.')) }), replace: 'true' })).status).toBe(201);
    expect((await list()).skills.find((skill) => skill.name === 'review-code')).toBeDefined();

    const deleted = await skillRoute.DELETE(new Request(`${base}/review-code`, { method: 'DELETE' }), { params: Promise.resolve({ name: 'review-code' }) });
    expect(deleted.status).toBe(204);
    expect((await skillRoute.DELETE(new Request(`${base}/review-code`, { method: 'DELETE' }), { params: Promise.resolve({ name: 'review-code' }) })).status).toBe(404);
    expect((await skillRoute.DELETE(new Request(`${base}/..`, { method: 'DELETE' }), { params: Promise.resolve({ name: '..' }) })).status).toBe(404);
  });

  it('refuses hostile archives with the reason and writes nothing', async () => {
    const before = folderFingerprint(dirs.skillsDir);
    const cases: [string, File, RegExp][] = [
      ['a path outside', zip({ 'SKILL.md': encode(skillMd('evil', 'x')), '../../escape.txt': encode('x') }), /leads outside the skill/],
      ['an absolute path', zip({ 'SKILL.md': encode(skillMd('evil', 'x')), '/etc/cron.d/evil': encode('x') }), /not a path inside the skill/],
      ['a zip bomb', zip({ 'SKILL.md': encode(skillMd('evil', 'x')), 'zeros.bin': new Uint8Array(3 * 1024 * 1024) }), /unpacks to more than 2 MB/],
      ['a name that is not its folder’s', zip({ 'SKILL.md': encode(skillMd('Not Valid', 'x')) }), /lowercase letters, digits and hyphens/],
      ['no SKILL.md', zip({ 'README.md': encode('hello') }), /no SKILL\.md/],
      ['not a zip', new File(['plain text'], 'x.zip'), /zip|no files/],
    ];
    for (const [label, archive, reason] of cases) {
      const answer = await importForm({ archive });
      expect([label, answer.status, answer.json.error?.message]).toEqual([label, 422, expect.stringMatching(reason)]);
    }
    expect(folderFingerprint(dirs.skillsDir)).toBe(before);
    expect(fs.existsSync(path.join(dirs.root, 'escape.txt'))).toBe(false);
  });

  it('a persona is given a skill or has it taken away in its graph; its sessions get the list and load_skill', async () => {
    const off = await personaRoute.PUT(new Request(`${base}/plan-task/personas/iris`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ enabled: false }) }), { params: Promise.resolve({ name: 'plan-task', persona: 'iris' }) });
    expect(await off.json()).toEqual({ persona: 'iris', skills: [] });
    expect((await list()).skills.find((skill) => skill.name === 'plan-task')?.personas).toEqual(['sage']);

    const session = await getOrchestrator().createSession({ persona: 'sage', models });
    await getOrchestrator().sendUserMessage(session.id, { text: 'Plan my week' });
    const call = await vi.waitFor(
      () => {
        const found = backend.calls.find((request) => request.system[0]?.text.startsWith('You are the Internal Dialog') && request.messages[0]?.content.includes('Plan my week'));
        if (!found) throw new Error('no call yet');
        return found;
      },
      { timeout: 10_000 },
    );
    expect(call.system[0]!.text).toContain('## Skills\n');
    expect(call.system[0]!.text).toContain('- plan-task: Plan a task before acting.');
    expect(call.system[0]!.text).toContain('- write-haiku: Write a haiku.');
    expect(call.tools?.map((tool) => tool.name)).toContain('load_skill');

    const irisSession = await getOrchestrator().createSession({ persona: 'iris', models });
    await getOrchestrator().sendUserMessage(irisSession.id, { text: 'Plan for iris' });
    const irisCall = await vi.waitFor(
      () => {
        const found = backend.calls.find((request) => request.system[0]?.text.startsWith('You are the Internal Dialog') && request.messages[0]?.content.includes('Plan for iris'));
        if (!found) throw new Error('no call yet');
        return found;
      },
      { timeout: 10_000 },
    );
    expect(irisCall.system[0]!.text).not.toContain('## Skills');
    expect(irisCall.tools?.map((tool) => tool.name)).not.toContain('load_skill');
  });
});
