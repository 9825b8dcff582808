// MCP with accounts, as a person sees it in Chromium (issue 30): a remote server that needs a
// sign-in — a real authorization server (oidc-provider) in front of an SDK MCP server — is added,
// signed in to on the server's own pages, refreshed silently, and ends in *needs sign-in* when the
// grant is revoked; a callback nobody started is refused. Then a server's question mid-call is a
// card in the chat, and a resource is attached with @.
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startOAuthMcpServer } from '../test/support/oauth-mcp-server';
import { fakeModels, fakeParams } from './support/fake-models';
import { signInOnAuthorizationServer } from './support/oauth-sign-in';
import { HomePage, SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

test('a remote MCP server: Sign in → consent → tools; refreshed silently; revoked → needs sign-in', async ({ page, request }) => {
  test.setTimeout(120_000);
  const server = await startOAuthMcpServer({ accessTokenTtl: 8 });
  try {
    await page.goto('/settings/mcp');
    const section = page.getByRole('region', { name: 'MCP servers' });
    await section.getByLabel('MCP servers configuration').fill(JSON.stringify({ mcpServers: { linear: { type: 'http', url: server.mcpUrl } } }));
    await section.getByRole('button', { name: 'Save servers' }).click();
    const item = section.getByRole('listitem', { name: 'MCP server linear' });
    await expect(item.getByTestId('mcp-state')).toHaveText('needs sign-in');
    await expect(item).toContainText('This server needs you to sign in');
    await item.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'settings-mcp-needs-sign-in');

    // The server's own pages: sign in, then allow AgentCSD; back in Settings, connected, with the server's tools.
    await signInOnAuthorizationServer(page, item, server.issuer);
    await expect(section.getByRole('status')).toContainText('linear: signed in.');
    await expect(item.getByTestId('mcp-state')).toHaveText('connected');
    await expect(item.getByRole('row').filter({ hasText: 'whoami' })).toBeVisible();
    await expect(item.getByRole('button', { name: 'Sign out' })).toBeVisible();
    await item.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'settings-mcp-signed-in');

    // The 8-second access token is refreshed ahead of expiry; nothing asks the person.
    await expect.poll(() => server.tokenRequests.filter((grant) => grant === 'refresh_token').length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    await page.reload();
    await expect(item.getByTestId('mcp-state')).toHaveText('connected');

    // The grant revoked at the server: the next refresh fails, and Settings says why.
    await server.revokeAllRefreshTokens();
    await expect(async () => {
      await page.reload();
      await expect(item.getByTestId('mcp-state')).toHaveText('needs sign-in', { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    await expect(item).toContainText('refused the refresh token');

    // A callback this app never started is refused, and changes nothing.
    const forged = await page.goto('/oauth/callback?state=forged-state&code=stolen-code');
    expect(forged?.status()).toBe(400);
    await expect(page.getByTestId('oauth-refused')).toContainText('unknown or has expired');
  } finally {
    await request.put('/api/mcp-servers', { data: { mcpServers: {} } });
    await server.close();
  }
});

test("a server's question mid-call is a card; a resource is attached with @", async ({ page, request }) => {
  test.setTimeout(120_000);
  const reset = await request.put('/api/settings', { data: { ...fakeModels(), params: fakeParams } });
  expect(reset.status(), await reset.text()).toBe(200);
  const everything = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const saved = await request.put('/api/mcp-servers', { data: { mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } } });
  expect(saved.status(), await saved.text()).toBe(200);
  try {
    await expect.poll(async () => ((await (await request.get('/api/mcp-servers')).json()) as { servers: { state: string }[] }).servers[0]?.state, { timeout: 30_000 }).toBe('ready');
    const home = new HomePage(page);
    await home.goto();
    await home.createSession({ name: 'Questions', persona: 'iris' });
    await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/);
    const session = new SessionPage(page);
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

    await session.send('Ask me something [[elicit]]');
    const call = session.card('everything__trigger-elicitation-request');
    await call.getByRole('button', { name: 'Approve', exact: true }).click();
    const question = session.chat.getByTestId('elicitation-card');
    await expect(question).toContainText('everything asks · waiting for you');
    await expect(question).toContainText('Please provide inputs for the following fields');
    await expect(question.getByRole('textbox').nth(1)).toHaveValue('It was a dark and stormy night.'); // its default
    await question.getByRole('textbox').first().fill('Ada Lovelace');
    await question.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'session-elicitation');
    await question.getByRole('button', { name: 'Accept' }).click();
    await expect(question).toContainText('answered');
    await expect(session.messages.filter({ hasText: 'Here is what the tools said:' })).toContainText('User provided the requested information');

    // @ opens the servers' resources; the chosen one is attached with its size, and read when sent.
    await session.input.fill('What does this say? @');
    const picker = session.chat.getByRole('list', { name: 'Resources' });
    await picker.getByRole('button').first().click();
    const attachments = session.chat.getByLabel('Attachments');
    await expect(attachments).toContainText(/📎 everything: .+ · ~\d+ tokens/);
    await saveScreenshot(page, 'session-mcp-attachment');
    await page.keyboard.press('Enter');
    const sent = session.messages.filter({ hasText: 'What does this say?' });
    await expect(sent.getByTestId('message-attachment')).toContainText('📎 everything:');
  } finally {
    await request.put('/api/mcp-servers', { data: { mcpServers: {} } });
  }
});
