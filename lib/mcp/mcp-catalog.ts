// What an MCP server offers besides tools (issue 30): resources and resource templates a person
// can attach to a message, and prompts they can run as slash commands. Everything read from a
// server is its text, not ours: it reaches the model escaped inside `<mcp_resource>` /
// `<mcp_prompt>` marked untrusted, cut to a token budget, and a resource URI that climbs out of
// its folder (`..`, raw or percent-encoded) is refused before the server is asked.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { wrapOutside } from '@/lib/mind/tags/escape';
import { estimateTokens } from '@/lib/mind/token-budget';

export interface McpResourceInfo {
  uri: string;
  name: string;
  mime_type: string | null;
  description: string | null;
}
export interface McpResourceTemplateInfo {
  uri_template: string;
  name: string;
  mime_type: string | null;
  description: string | null;
}
export interface McpPromptInfo {
  name: string;
  description: string | null;
  arguments: { name: string; description: string | null; required: boolean }[];
}

export class McpCatalogError extends Error {
  constructor(
    readonly code: 'validation' | 'not_found' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'McpCatalogError';
  }
}

/** Pages followed at most when a server lists a lot. */
const MAX_PAGES = 10;
/** Tokens of attachments one message may carry (shown before sending). */
export const ATTACHMENT_BUDGET_TOKENS = 8_000;

export async function listResources(client: Client): Promise<{ resources: McpResourceInfo[]; templates: McpResourceTemplateInfo[] }> {
  if (!client.getServerCapabilities()?.resources) return { resources: [], templates: [] };
  const resources: McpResourceInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await client.listResources(cursor ? { cursor } : undefined);
    for (const resource of listed.resources) {
      resources.push({ uri: resource.uri, name: resource.title ?? resource.name, mime_type: resource.mimeType ?? null, description: resource.description ?? null });
    }
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  const templates = await client.listResourceTemplates().then(
    (listed) => listed.resourceTemplates.map((template) => ({ uri_template: template.uriTemplate, name: template.title ?? template.name, mime_type: template.mimeType ?? null, description: template.description ?? null })),
    () => [] as McpResourceTemplateInfo[],
  );
  return { resources, templates };
}

export async function listPrompts(client: Client): Promise<McpPromptInfo[]> {
  if (!client.getServerCapabilities()?.prompts) return [];
  const prompts: McpPromptInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await client.listPrompts(cursor ? { cursor } : undefined);
    for (const prompt of listed.prompts) {
      prompts.push({
        name: prompt.name,
        description: prompt.description ?? null,
        arguments: (prompt.arguments ?? []).map((argument) => ({ name: argument.name, description: argument.description ?? null, required: argument.required === true })),
      });
    }
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return prompts;
}

/** A URI that climbs out of where it points (`..` in any spelling) is refused. */
export function checkResourceUri(uri: string): void {
  let decoded = uri;
  for (let round = 0; round < 3; round++) {
    try {
      const next = decodeURIComponent(decoded);
      if (next === decoded) break;
      decoded = next;
    } catch {
      throw new McpCatalogError('validation', `resource URI ${JSON.stringify(uri)} is not valid percent-encoding`);
    }
  }
  if (/\u0000/.test(decoded)) throw new McpCatalogError('validation', 'a resource URI must not contain NUL');
  if (decoded.split(/[/\\]/).some((segment) => segment === '..')) {
    throw new McpCatalogError('validation', `resource URI ${JSON.stringify(uri)} climbs out of its folder (..): refused`);
  }
}

/** RFC 6570 level 1–2 expressions as a pattern: `{x}` one segment, `{+x}` / `{/x}` anything. */
export function templateMatches(template: string, uri: string): boolean {
  const pattern = template
    .split(/(\{[^}]*\})/)
    .map((part) => (part.startsWith('{') ? (/^\{[+#/]/.test(part) ? '.+' : '[^/?#]+') : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`).test(uri);
}

/** Cuts text to a token budget, saying so. */
function withinBudget(text: string, budget: number): { text: string; tokens: number; cut: boolean } {
  const tokens = estimateTokens(text);
  if (tokens <= budget) return { text, tokens, cut: false };
  const keep = Math.max(0, Math.floor((text.length * budget) / tokens));
  return { text: `${text.slice(0, keep)}\n[… cut: the resource is ~${tokens} tokens, the budget ${budget} …]`, tokens: budget, cut: true };
}

/** A resource's contents as the model reads them: text as is, binary as one line that says what it was. */
export async function readResourceText(client: Client, uri: string): Promise<{ text: string; mime_type: string | null }> {
  const read = await client.readResource({ uri });
  const parts = read.contents.map((content) =>
    'text' in content && typeof content.text === 'string'
      ? content.text
      : `[binary ${content.mimeType ?? 'content'}, ${Math.floor(((('blob' in content && typeof content.blob === 'string' ? content.blob : '') as string).length * 3) / 4)} bytes, not shown: ${content.uri}]`,
  );
  return { text: parts.join('\n'), mime_type: read.contents[0]?.mimeType ?? null };
}

export function resourceBlock(input: { server: string; uri: string; mimeType: string | null; text: string; budget: number }): { block: string; tokens: number; cut: boolean } {
  const fitted = withinBudget(input.text, input.budget);
  return {
    block: wrapOutside('mcp_resource', fitted.text, { server: input.server, uri: input.uri, mime_type: input.mimeType ?? undefined, untrusted: 'true' }),
    tokens: fitted.tokens,
    cut: fitted.cut,
  };
}

export async function promptText(client: Client, name: string, args: Record<string, string>): Promise<string> {
  const prompt = await client.getPrompt({ name, arguments: args });
  return prompt.messages
    .map((message) => {
      const content = message.content;
      const text = content.type === 'text' ? content.text : content.type === 'resource' && 'text' in content.resource ? String(content.resource.text) : `[${content.type} content, not shown]`;
      return prompt.messages.length > 1 ? `${message.role}: ${text}` : text;
    })
    .join('\n\n');
}

export function promptBlock(input: { server: string; name: string; text: string; budget: number }): { block: string; tokens: number } {
  const fitted = withinBudget(input.text, input.budget);
  return { block: wrapOutside('mcp_prompt', fitted.text, { server: input.server, name: input.name, untrusted: 'true' }), tokens: fitted.tokens };
}
