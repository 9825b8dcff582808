// Settings › Channels in Chromium, the channels of issues 47 and 62: a mailbox added from the form
// against a real Dovecot (IMAP) and an SMTP receiver on loopback, a Discord bot against the fake
// Discord and a Slack app against the fake Slack — each tested, connected, and shown with its
// secrets masked.
import { expect, test } from '@playwright/test';
import { dovecotPath, startDovecot, type TestImapServer } from '../test/support/dovecot';
import { startSmtpReceiver, type SmtpReceiver } from '../test/support/smtp-receiver';
import { startFakeDiscord, type FakeDiscord } from '../test/fakes/fake-discord-server';
import { startFakeSlack, type FakeSlack } from '../test/fakes/fake-slack-server';
import { saveScreenshot } from './support/screenshots';

let imap: TestImapServer;
let smtp: SmtpReceiver;
let discord: FakeDiscord;
let slack: FakeSlack;

test.beforeAll(async () => {
  if (!dovecotPath) throw new Error('Dovecot is not installed: apt-get install dovecot-imapd (.ci/run does it)');
  [imap, smtp, discord, slack] = await Promise.all([startDovecot(), startSmtpReceiver(), startFakeDiscord(), startFakeSlack()]);
});
test.afterAll(async ({ request }) => {
  const { channels } = (await (await request.get('/api/channels')).json()) as { channels: { id: string }[] };
  for (const channel of channels) await request.delete(`/api/channels/${channel.id}`);
  await Promise.all([imap?.stop(), smtp?.close(), discord?.close(), slack?.close()]);
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
