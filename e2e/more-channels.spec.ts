// Settings › Channels in Chromium, the channels of issues 47 and 62: a mailbox added from the form
// against a real Dovecot (IMAP) and an SMTP receiver on loopback, a Discord bot against the fake
// Discord, a Slack app against the fake Slack and a WhatsApp number against the fake Cloud API
// (its webhook delivered to the real server, past the guard without the owner's token) — each
// tested, connected, and shown with its secrets masked.
import { expect, test } from '@playwright/test';
import { dovecotPath, startDovecot, type TestImapServer } from '../test/support/dovecot';
import { startSmtpReceiver, type SmtpReceiver } from '../test/support/smtp-receiver';
import { startFakeDiscord, type FakeDiscord } from '../test/fakes/fake-discord-server';
import { startFakeSlack, type FakeSlack } from '../test/fakes/fake-slack-server';
import { startFakeWhatsApp, type FakeWhatsApp } from '../test/fakes/fake-whatsapp';
import { saveScreenshot } from './support/screenshots';

let imap: TestImapServer;
let smtp: SmtpReceiver;
let discord: FakeDiscord;
let slack: FakeSlack;
let whatsapp: FakeWhatsApp;

test.beforeAll(async () => {
  if (!dovecotPath) throw new Error('Dovecot is not installed: apt-get install dovecot-imapd (.ci/run does it)');
  [imap, smtp, discord, slack, whatsapp] = await Promise.all([startDovecot(), startSmtpReceiver(), startFakeDiscord(), startFakeSlack(), startFakeWhatsApp()]);
});
test.afterAll(async ({ request }) => {
  const { channels } = (await (await request.get('/api/channels')).json()) as { channels: { id: string }[] };
  for (const channel of channels) await request.delete(`/api/channels/${channel.id}`);
  await Promise.all([imap?.stop(), smtp?.close(), discord?.close(), slack?.close(), whatsapp?.close()]);
});

test('add a mailbox: IMAP and SMTP tested, connected, passwords never shown', async ({ page }) => {
  await page.goto('/settings/channels');
  const section = page.getByRole('region', { name: 'Channels' });
  await section.getByRole('button', { name: 'Add a channel' }).click();
  await section.getByLabel('Kind').selectOption('email');
  await section.getByLabel('Name').fill('Assistant’s mailbox');
  await section.getByLabel("The agent's address").fill('agent@example.net');
  const incoming = section.getByRole('group', { name: 'Incoming mail (IMAP)' });
  await incoming.getByLabel('Server').fill('127.0.0.1');
  await incoming.getByLabel('Port').fill(String(imap.port));
  await incoming.getByLabel('TLS').uncheck();
  await incoming.getByLabel('User').fill('agent');
  await incoming.getByLabel(/App password/).fill(imap.password);
  // The receiver takes the same account (the usual case: one app password for both).
  const outgoing = section.getByRole('group', { name: 'Outgoing mail (SMTP submission)' });
  await outgoing.getByLabel('Server').fill('127.0.0.1');
  await outgoing.getByLabel('Port').fill(String(smtp.port));
  await outgoing.getByLabel('TLS').uncheck();
  await section.getByLabel('SMTP signs in with the IMAP user and password').uncheck();
  await outgoing.getByLabel('User').fill(smtp.user);
  await outgoing.getByLabel(/App password/).fill(smtp.password);
  await saveScreenshot(page, 'settings-channels-email');
  await section.getByRole('button', { name: 'Add channel' }).click();
  await expect(section.getByTestId('channel-state')).toHaveText(/connected agent@example\.net \(INBOX\)/, { timeout: 15_000 });
  await expect(section).toContainText('Email agent@example.net');
  await section.getByRole('button', { name: 'Test' }).click();
  await expect(section.getByRole('status')).toContainText('Assistant’s mailbox works: agent@example.net: IMAP 127.0.0.1', { timeout: 15_000 });
  await expect(section.getByRole('status')).toContainText('SMTP 127.0.0.1 accepts the sign-in');
  const html = await section.innerHTML();
  expect(html).not.toContain(imap.password);
  expect(html).not.toContain(smtp.password);
});

test('add a Discord bot: tested, connected, the token never shown', async ({ page }) => {
  await page.goto('/settings/channels');
  const section = page.getByRole('region', { name: 'Channels' });
  await section.getByRole('button', { name: 'Add a channel' }).click();
  await section.getByLabel('Kind').selectOption('discord');
  await section.getByLabel('Name').fill('Our server');
  await section.getByLabel(/Bot token/).fill(discord.token);
  await section.getByLabel(/Server channels to read/).fill(discord.guild.channel.id);
  await section.getByLabel('Discord API').fill(discord.apiRoot);
  await saveScreenshot(page, 'settings-channels-discord');
  await section.getByRole('button', { name: 'Add channel' }).click();
  const row = section.getByTestId('channel').filter({ hasText: 'Our server' });
  await expect(row.getByTestId('channel-state')).toHaveText(/connected @agentcsd_test_bot/, { timeout: 15_000 });
  await row.getByRole('button', { name: 'Test' }).click();
  await expect(section.getByRole('status')).toContainText('Our server works: @agentcsd_test_bot; Message Content intent on');
  expect(await section.innerHTML()).not.toContain(discord.token);
  await expect.poll(() => discord.commands.length).toBe(5);
});

test('add a Slack app: the manifest shown, tested, connected over Socket Mode, the tokens never shown', async ({ page }) => {
  await page.goto('/settings/channels');
  const section = page.getByRole('region', { name: 'Channels' });
  await section.getByRole('button', { name: 'Add a channel' }).click();
  await section.getByLabel('Kind').selectOption('slack');
  await section.getByLabel('Name').fill('Team');
  await section.getByRole('button', { name: 'AgentCSD’s manifest' }).click();
  await expect(section.getByLabel('Slack app manifest')).toContainText('socket_mode_enabled: true');
  await section.getByLabel(/App-level token/).fill(slack.appToken);
  await section.getByLabel(/Bot token/).fill(slack.botToken);
  await section.getByLabel('Slack Web API').fill(slack.apiRoot);
  await saveScreenshot(page, 'settings-channels-slack');
  await section.getByRole('button', { name: 'Add channel' }).click();
  const row = section.getByTestId('channel').filter({ hasText: 'Team' });
  await expect(row.getByTestId('channel-state')).toHaveText(/connected @agentcsd/, { timeout: 15_000 });
  await row.getByRole('button', { name: 'Test' }).click();
  await expect(section.getByRole('status')).toContainText('Team works: @agentcsd in Fake team');
  const html = await section.innerHTML();
  expect(html).not.toContain(slack.botToken);
  expect(html).not.toContain(slack.appToken);
  expect(slack.maxLive()).toBe(1);
});

test('add a WhatsApp number: the webhook address and verify token shown, Meta’s handshake and a stranger’s message reach it, the secrets never shown', async ({ page, baseURL }) => {
  await page.goto('/settings/channels');
  const section = page.getByRole('region', { name: 'Channels' });
  await section.getByRole('button', { name: 'Add a channel' }).click();
  await section.getByLabel('Kind').selectOption('whatsapp');
  await section.getByLabel('Name').fill('Family WhatsApp');
  await expect(section.getByRole('note')).toContainText('Meta delivers only to a public HTTPS address');
  await section.getByLabel('Phone number ID').fill(whatsapp.phoneNumberId);
  await section.getByLabel(/Access token/).fill(whatsapp.accessToken);
  await section.getByLabel(/App secret/).fill(whatsapp.appSecret);
  await section.getByLabel('Graph API').fill(whatsapp.apiRoot);
  await saveScreenshot(page, 'settings-channels-whatsapp');
  await section.getByRole('button', { name: 'Add channel' }).click();
  const row = section.getByTestId('channel').filter({ hasText: 'Family WhatsApp' });
  await expect(row.getByTestId('channel-state')).toHaveText(/connected \+1 555-0100 \(AgentCSD Family\)/, { timeout: 15_000 });
  await row.getByRole('button', { name: 'Test' }).click();
  await expect(section.getByRole('status')).toContainText('Family WhatsApp works: WhatsApp +1 555-0100 (AgentCSD Family)');
  const html = await section.innerHTML();
  expect(html).not.toContain(whatsapp.accessToken);
  expect(html).not.toContain(whatsapp.appSecret);

  // What the owner pastes into Meta, and Meta using it: the real server lets the webhook through on its own terms.
  const shown = row.getByTestId('whatsapp-webhook');
  const address = (await shown.locator('code').nth(0).textContent())!;
  const verifyToken = (await shown.locator('code').nth(1).textContent())!;
  expect(address).toMatch(new RegExp(`^${baseURL}/api/channels/[0-9a-f-]{36}/whatsapp$`));
  whatsapp.setWebhook(address);
  expect(await whatsapp.verify(verifyToken, '424242')).toEqual({ status: 200, body: '424242' });
  expect((await whatsapp.verify('not-the-token')).status).toBe(403);
  expect(await whatsapp.deliverRaw('{"object":"whatsapp_business_account","entry":[]}', { 'x-hub-signature-256': 'sha256=00' })).toBe(401);
  const written = await whatsapp.userWrites({ wa_id: '15550001234', name: 'Grandma' }, 'hello dear');
  expect(written.status).toBe(200);
  await page.reload();
  await expect(page.getByRole('list', { name: 'Pairing codes waiting on Family WhatsApp' })).toContainText('Grandma');
  await expect.poll(() => whatsapp.sent.filter((message) => message.to === '15550001234').length).toBe(1);
  await saveScreenshot(page, 'settings-channels-whatsapp-pairing');
});
