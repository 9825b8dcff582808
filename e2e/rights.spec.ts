// Rights in Chromium (issue 58): the owner approves two strangers with the pairing form's defaults —
// each talks in a conversation of their own and hears nothing of the other's; sharing a session is
// a separate step that names who is in it; the session list says who is in each; the People page
// shows each person's conversations, today and what their role allows, changed by a switch.
import { expect, test, type Page } from '@playwright/test';
import { startFakeTelegram, type FakeTelegram } from '../test/fakes/fake-telegram-server';
import { saveScreenshot } from './support/screenshots';

let telegram: FakeTelegram;
let channelId = '';

test.beforeAll(async () => {
  telegram = await startFakeTelegram();
});
test.afterAll(async ({ request }) => {
  if (channelId) await request.delete(`/api/channels/${channelId}`);
  await telegram.close();
});

const textsTo = (id: number) => telegram.sent.filter((message) => message.chatId === String(id)).map((message) => message.text);

/** A stranger writes; their code shows on Settings › Channels. */
async function strangerWrites(page: Page, user: { id: number; username: string }, text: string) {
  telegram.userWrites(user, text);
  await page.goto('/settings/channels');
  const pairing = page.getByTestId('pairing').filter({ hasText: `@${user.username}` });
  await expect(pairing).toBeVisible({ timeout: 15_000 });
  return pairing;
}

test('pairing with the defaults gives each person their own conversation; sharing asks and names its people; the People page shows it all', async ({ page, request }) => {
  const channel = await request.put('/api/channels', { data: { kind: 'telegram', name: 'Household bot', config: { token: telegram.token, api_root: telegram.apiRoot } } });
  expect(channel.status(), await channel.text()).toBeLessThan(300);
  channelId = ((await channel.json()) as { id: string }).id;
  const alice = { id: 8101, username: 'alice' };
  const dave = { id: 8102, username: 'dave' };

  // Alice: approved with every default — a new person, a guest, her own conversation with the first persona.
  const first = await strangerWrites(page, alice, 'hi, Alice here');
  await expect(first.getByLabel('Who is this?')).toHaveValue('new');
  await first.getByRole('button', { name: /^Approve / }).click();
  await expect(page.getByRole('status')).toContainText('@alice paired: their own conversation with');
  telegram.userWrites(alice, 'My PIN is 4242');
  await expect.poll(() => textsTo(alice.id).at(-1) ?? '', { timeout: 20_000 }).toContain('You said: My PIN is 4242');

  // Dave, the fourth person of the red-team's walk: the defaults again, never Alice's conversation.
  const second = await strangerWrites(page, dave, 'hello, Dave');
  // Sharing is its own step: it names who is already in the session and asks before it can be approved.
  await second.getByRole('button', { name: 'Share an existing conversation instead…' }).click();
  const aliceSession = second.getByLabel('Session').locator('option', { hasText: '@alice, Telegram' });
  await second.getByLabel('Session').selectOption({ label: (await aliceSession.first().textContent())! });
  await expect(second.getByTestId('pairing-share-people')).toContainText('Already in it: @alice. @dave will read everything said there');
  await expect(second.getByRole('button', { name: /^Approve / })).toBeDisabled();
  await saveScreenshot(page, 'pairing-share');
  await second.getByRole('button', { name: 'Give them their own conversation instead' }).click();
  await second.getByRole('button', { name: /^Approve / }).click();
  await expect(page.getByRole('status')).toContainText('@dave paired: their own conversation with');
  telegram.userWrites(dave, 'What do you know about PINs?');
  await expect.poll(() => textsTo(dave.id).at(-1) ?? '', { timeout: 20_000 }).toContain('You said: What do you know about PINs?');
  expect(textsTo(dave.id).join('\n')).not.toContain('4242');
  expect(textsTo(alice.id).join('\n')).not.toContain('What do you know about PINs');

  // The session list says whose each conversation is; each is named by its person.
  await page.goto('/');
  await expect(page.getByRole('link', { name: /· @alice, Telegram$/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /· @dave, Telegram$/ })).toBeVisible();
  await expect(page.getByTestId('session-row-people').filter({ hasText: 'with @dave' })).toHaveCount(1);

  // The People page: Dave's conversations, door keys, today's messages, and what a guest may do — widened by a switch.
  const everyone = (await (await request.get('/api/people')).json()) as { people: { id: string; name: string }[] };
  const daveId = everyone.people.find((entry) => entry.name === '@dave')!.id;
  const key = await request.post('/api/keys', { data: { name: 'dave-laptop', personas: ['iris'], person_id: daveId } });
  expect(key.status(), await key.text()).toBe(201);
  await page.goto('/people');
  const person = page.getByRole('list', { name: 'People' }).getByRole('listitem', { name: 'Person @dave' });
  await person.getByText('Conversations, keys, today and rights').click();
  const sessions = person.getByRole('region', { name: 'Sessions of @dave' });
  await expect(sessions.getByRole('link', { name: /· @dave, Telegram$/ })).toBeVisible();
  await expect(sessions.getByRole('link', { name: /@alice/ })).toHaveCount(0);
  await expect(sessions).toContainText('dave-laptop');
  await expect(person.getByTestId('person-today')).toContainText('Today: 1 message of 50');
  const rights = person.getByRole('region', { name: 'What @dave may do' });
  const browse = rights.getByLabel('drive the browser');
  await expect(browse).not.toBeChecked();
  await expect(rights.getByLabel('run code (bash, Python) in the sandbox')).not.toBeChecked();
  await browse.click(); // saved on the server, then shown: the box follows the stored rights
  await expect(browse).toBeChecked();
  await expect(rights.getByText('changed for @dave')).toBeVisible();
  await saveScreenshot(page, 'people-rights');
  const whole = (await (await request.get(`/api/people/${daveId}`)).json()) as { person: { rights: unknown }; sessions: { name: string }[]; keys: { name: string }[]; may: { trait: string; allowed: boolean }[] };
  expect(whole.keys.map((entry) => entry.name)).toEqual(['dave-laptop']);
  expect(whole.person.rights).toEqual({ allow: ['browses'], deny: [] });
  expect(whole.sessions.map((session) => session.name)).toEqual([expect.stringMatching(/· @dave, Telegram$/)]);
  expect(whole.may.find((entry) => entry.trait === 'browses')!.allowed).toBe(true);
});
