// People in Chromium (issue 42): two strangers paired on Telegram (the fake Bot API) into one
// session shared on purpose — one trusted, one a guest — the session page says who is in it; the
// People page changes a role and merges the two into one person with both identities.
import { expect, test } from '@playwright/test';
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

test('a shared session shows its people; the People page changes a role and merges two identities', async ({ page, request }) => {
  const created = await request.post('/api/sessions', { data: { persona: 'iris', name: 'Family chat' } });
  const { session } = (await created.json()) as { session: { id: string } };
  const channel = await request.put('/api/channels', { data: { kind: 'telegram', name: 'Family bot', config: { token: telegram.token, api_root: telegram.apiRoot } } });
  expect(channel.status(), await channel.text()).toBeLessThan(300);
  channelId = ((await channel.json()) as { id: string }).id;

  const pairAs = async (user: { id: number; username: string }, role: 'trusted' | 'guest') => {
    telegram.userWrites(user, 'hello');
    await expect.poll(async () => ((await (await request.get(`/api/channels/${channelId}/pairings`)).json()) as { pairings: { sender: string }[] }).pairings.some((pairing) => pairing.sender === `@${user.username}`), { timeout: 15_000 }).toBe(true);
    const { pairings } = (await (await request.get(`/api/channels/${channelId}/pairings`)).json()) as { pairings: { code: string; sender: string }[] };
    const code = pairings.find((pairing) => pairing.sender === `@${user.username}`)!.code;
    const approved = await request.post(`/api/channels/${channelId}/pairings`, { data: { code, session_id: session.id, role, share: true } });
    expect(approved.status(), await approved.text()).toBe(201);
  };
  await pairAs({ id: 7001, username: 'dana' }, 'trusted');
  await pairAs({ id: 7002, username: 'erin' }, 'guest');

  await page.goto(`/sessions/${session.id}`);
  await expect(page.getByTestId('session-people')).toHaveText('with Owner (owner), @dana (trusted), @erin (guest)');
  await saveScreenshot(page, 'session-people');

  await page.goto('/people');
  const list = page.getByRole('list', { name: 'People' });
  await expect(list.getByRole('listitem', { name: 'Person Owner' })).toBeVisible();
  const erin = list.getByRole('listitem', { name: 'Person @erin' });
  await erin.getByLabel('Role of @erin').selectOption('trusted');
  await expect(page.getByRole('status')).toHaveText('@erin is now trusted.');
  await saveScreenshot(page, 'people');
  // @erin's Telegram account is @dana's second phone: one person, both identities.
  const dana = list.getByRole('listitem', { name: 'Person @dana' });
  await dana.getByLabel('Merge into @dana').selectOption({ label: '@erin (telegram)' });
  await dana.getByRole('button', { name: 'Merge' }).click();
  await expect(page.getByRole('status')).toHaveText('Merged into @dana.');
  await expect(list.getByRole('listitem', { name: 'Person @erin' })).toHaveCount(0);
  await expect(dana.getByRole('list', { name: 'Identities of @dana' })).toContainText('@erin');
  await page.goto(`/sessions/${session.id}`);
  await expect(page.getByTestId('session-people')).toHaveText('with Owner (owner), @dana (trusted)');
});

test('People › Add a person: a household member with no chat, their card opened with the invite, the personas a guest is given and their quiet hours', async ({ page, request }) => {
  await page.goto('/people');
  const form = page.getByRole('form', { name: 'Add a person' });
  await form.getByLabel('Their name').fill('Grandma Rosa');
  await form.getByLabel('Their role').selectOption('guest');
  await form.getByRole('button', { name: 'Add' }).click();
  await expect(page.getByRole('status')).toHaveText('Grandma Rosa added. Invite them to the web pages from their card below.');
  const rosa = page.getByRole('list', { name: 'People' }).getByRole('listitem', { name: 'Person Grandma Rosa' });
  await expect(rosa.getByLabel('Role of Grandma Rosa')).toHaveValue('guest');
  await expect(rosa.getByRole('button', { name: 'Invite Grandma Rosa to the web pages' })).toBeVisible();
  // A guest talks to the personas she is given.
  const personas = rosa.getByRole('group', { name: 'Personas Grandma Rosa may talk to' });
  await expect(personas).toContainText('None yet');
  await personas.getByLabel('iris').click(); // saved, then shown checked
  await expect(personas.getByLabel('iris')).toBeChecked();
  await expect(personas).not.toContainText('None yet');
  // Her night: the agent's own words wait; saved on her record.
  const quiet = rosa.getByRole('form', { name: 'Quiet hours of Grandma Rosa' });
  await quiet.getByLabel('Quiet from').fill('21:30');
  await quiet.getByLabel('Quiet until').fill('08:00');
  await quiet.getByLabel('Time zone').fill('Europe/Madrid');
  await quiet.getByRole('button', { name: 'Save' }).click();
  await expect(quiet).toContainText('21:30–08:00 (Europe/Madrid)');
  await saveScreenshot(page, 'people-add-person');
  const { people } = (await (await request.get('/api/people')).json()) as { people: { id: string; name: string; limits: unknown }[] };
  const saved = people.find((person) => person.name === 'Grandma Rosa')!;
  expect(saved.limits).toEqual({ personas: ['iris'], quiet_hours: { from: '21:30', to: '08:00', time_zone: 'Europe/Madrid' } });
  expect((await request.delete(`/api/people/${saved.id}`)).ok()).toBe(true);
});
