// Page objects: what a person sees and does, found by role and label.
import { expect, type Page } from '@playwright/test';

export class HomePage {
  constructor(readonly page: Page) {}

  async goto() {
    await this.page.goto('/');
    await expect(this.page.getByRole('heading', { name: 'Sessions', level: 1 })).toBeVisible();
  }

  async createSession(input: { name?: string; persona: string }) {
    const form = this.page.getByRole('form', { name: 'New session' });
    if (input.name) await form.getByLabel('Session name (optional)').fill(input.name);
    await form.getByLabel('Persona').selectOption(input.persona);
    await form.getByRole('button', { name: 'Create session' }).click();
  }

  row(name: string) {
    return this.page.getByRole('row').filter({ has: this.page.getByRole('link', { name, exact: true }) });
  }
}

export class PersonaEditorPage {
  constructor(readonly page: Page) {}

  get editor() {
    return this.page.getByRole('textbox', { name: 'Markdown' });
  }

  get preview() {
    return this.page.getByRole('region', { name: 'Preview' });
  }
}

export class SessionPage {
  constructor(readonly page: Page) {}

  get chat() {
    return this.page.getByRole('region', { name: 'External Dialog' });
  }

  get internal() {
    return this.page.getByRole('region', { name: 'Internal Dialog' });
  }

  get subconscious() {
    return this.page.getByRole('region', { name: 'Subconscious' });
  }

  get messages() {
    return this.chat.getByRole('list', { name: 'Messages' }).getByRole('listitem');
  }

  get cycles() {
    return this.subconscious.getByRole('list', { name: 'Cycles' }).getByRole('listitem');
  }

  get input() {
    return this.chat.getByRole('textbox', { name: 'Message', exact: true });
  }

  async send(text: string) {
    await this.input.fill(text);
    await this.page.keyboard.press('Enter');
  }

  /** A tool call's card in the chat. */
  card(tool: string) {
    return this.chat.getByRole('region', { name: `Tool call ${tool}` });
  }

  /** The Internal panel's list of a turn's tool calls. */
  get toolActivity() {
    return this.internal.getByRole('list', { name: 'Tool calls' });
  }
}
