// Settings, a section per page (issue 50): each has its own address (`/settings/channels`) that
// cards, notices, the README and docs link to. The order is the side navigation's.
export const settingsSections = [
  { slug: 'models', title: 'Models and parameters', blurb: 'Defaults for new sessions: each layer’s backend and model, pacing, budgets. Each session keeps its own copy, editable on its page.', doc: 'docs/configuration.md' },
  { slug: 'tools', title: 'Tools and trust', blurb: 'The sandbox, the built-in tools, the standing rules that decide a call, and the sources whose content you trust.', doc: 'docs/tools-and-safety.md' },
  { slug: 'mcp', title: 'MCP servers', blurb: 'Servers whose tools the agent may use: their state, sign-in, and each tool’s rule.', doc: 'docs/tools-and-safety.md' },
  { slug: 'memory', title: 'Memory', blurb: 'How recall searches (words, or meaning too) and how conversations become facts while you are away.', doc: 'docs/memory.md' },
  { slug: 'channels', title: 'Channels', blurb: 'Telegram, WhatsApp, Discord, Slack, IRC and email: the bots, numbers, apps and mailboxes the agent talks through, and the pairing codes waiting for you.', doc: 'docs/channels.md' },
  { slug: 'voice', title: 'Voice', blurb: 'The speech server voice notes and push-to-talk are heard on, the voice replies are said in, and where the audio goes.', doc: 'docs/voice.md' },
  { slug: 'skills', title: 'Skills', blurb: 'Folders with a SKILL.md the agent loads when a task calls for them.', doc: 'docs/tasks-and-specialists.md' },
  { slug: 'people', title: 'People', blurb: 'Everyone who talks to the agent, their role and their own conversations and memories.', doc: 'docs/channels.md' },
  { slug: 'access', title: 'Access', blurb: 'Keys for other clients (OpenAI API, MCP, ACP), each acting as a person on the personas you tick.', doc: 'docs/rest-api.md' },
  { slug: 'spending', title: 'Spending', blurb: 'Hard daily allowances in dollars or tokens, and where the money went.', doc: 'docs/configuration.md' },
  { slug: 'backups', title: 'Backups', blurb: 'The whole app in one file, now or every day: listed here with a download; restored on a fresh machine with one command.', doc: 'docs/operations.md' },
  { slug: 'devices', title: 'My devices', blurb: 'Your passkeys and the browsers signed in as you; a passkey for this device.', doc: 'docs/people-on-the-web.md' },
  { slug: 'cluster', title: 'Cluster', blurb: 'The processes sharing the sessions on PostgreSQL, their load and the moves of the last hour.', doc: 'docs/cluster.md' },
] as const;

export type SettingsSlug = (typeof settingsSections)[number]['slug'];

export function settingsSection(slug: string) {
  return settingsSections.find((section) => section.slug === slug) ?? null;
}

/** Where "Settings › <title>" lands, for the words the app writes in cards and notices. */
export const settingsHrefByTitle: Record<string, string> = Object.fromEntries(
  settingsSections.flatMap((section) => [[section.title, `/settings/${section.slug}`], ...(section.slug === 'spending' ? [['Allowances', '/settings/spending']] : []), ...(section.slug === 'tools' ? [['Tools', '/settings/tools'], ['Trusted sources', '/settings/tools#trusted-sources-heading']] : [])]),
);
