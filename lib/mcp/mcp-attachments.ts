// What a person attaches to a message from their MCP servers (ARCHITECTURE §17): a resource (by
// URI, one the server lists or one of its templates matches) or a prompt run as a slash command.
// Resolved on the server when the message is sent, into escaped untrusted blocks after the text,
// all of them together within one token budget.
import { isTrusted, originLabel } from '@/lib/config/trust-config';
import { readTrust } from '@/lib/store/untrusted-repository';
import { z } from 'zod';
import { mcpServerNameSchema } from '@/lib/config/mcp-config';
import {
  ATTACHMENT_BUDGET_TOKENS,
  checkResourceUri,
  listResources,
  McpCatalogError,
  promptBlock,
  promptText,
  readResourceText,
  resourceBlock,
  templateMatches,
} from './mcp-catalog';
import type { McpPool } from './mcp-pool';
import { errorText } from '@/lib/errors/error-text';

export const mcpAttachmentSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('mcp_resource'), server: mcpServerNameSchema, uri: z.string().min(1).max(4_096) }).strict(),
  z
    .object({
      kind: z.literal('mcp_prompt'),
      server: mcpServerNameSchema,
      name: z.string().min(1).max(256),
      arguments: z.record(z.string().max(100), z.string().max(10_000)).default({}),
    })
    .strict(),
]);
export type McpAttachment = z.infer<typeof mcpAttachmentSchema>;

/** The resource, if the server offers it: listed, or matched by one of its templates. */
async function checkOffered(pool: McpPool, server: string, uri: string): Promise<void> {
  checkResourceUri(uri);
  const { resources, templates } = await listResources(pool.client(server));
  if (resources.some((resource) => resource.uri === uri)) return;
  if (templates.some((template) => templateMatches(template.uri_template, uri))) return;
  throw new McpCatalogError('not_found', `"${server}" offers no resource ${JSON.stringify(uri)}`);
}

/** One resource as it would be attached: its size in tokens and the start of its text. */
export async function previewResource(pool: McpPool, server: string, uri: string) {
  await checkOffered(pool, server, uri);
  const read = await readResourceText(pool.client(server), uri);
  const rendered = resourceBlock({ server, uri, mimeType: read.mime_type, text: read.text, budget: ATTACHMENT_BUDGET_TOKENS });
  return { uri, mime_type: read.mime_type, tokens: rendered.tokens, cut: rendered.cut, budget: ATTACHMENT_BUDGET_TOKENS, preview: read.text.slice(0, 400) };
}

/** The blocks to append to the message's text; throws (nothing sent) when one cannot be had. */
export async function renderAttachments(
  pool: McpPool,
  attachments: readonly McpAttachment[],
  { budget = ATTACHMENT_BUDGET_TOKENS }: { budget?: number } = {},
): Promise<string> {
  const blocks: string[] = [];
  let left = budget;
  for (const attachment of attachments) {
    if (left <= 0) throw new McpCatalogError('validation', `the attachments exceed the budget of ${budget} tokens`);
    try {
      if (attachment.kind === 'mcp_resource') {
        await checkOffered(pool, attachment.server, attachment.uri);
        const read = await readResourceText(pool.client(attachment.server), attachment.uri);
        const rendered = resourceBlock({ server: attachment.server, uri: attachment.uri, mimeType: read.mime_type, text: read.text, budget: left });
        blocks.push(rendered.block);
        left -= rendered.tokens;
      } else {
        const text = await promptText(pool.client(attachment.server), attachment.name, attachment.arguments);
        const rendered = promptBlock({ server: attachment.server, name: attachment.name, text, budget: left });
        blocks.push(rendered.block);
        left -= rendered.tokens;
      }
    } catch (error) {
      if (error instanceof Error && (error.name === 'McpCatalogError' || error.name === 'McpServerError')) throw error;
      throw new McpCatalogError('failed', `"${attachment.server}" could not give ${attachment.kind === 'mcp_resource' ? attachment.uri : `/${attachment.server}:${attachment.name}`}: ${errorText(error)}`);
    }
  }
  return blocks.join('\n\n');
}

/** A server's text in a message is untrusted content unless the user trusts the server (§20): which, or null. */
export async function attachmentsUntrustedSource(attachments: readonly McpAttachment[]): Promise<string | null> {
  const trust = await readTrust();
  const server = attachments.find((attachment) => !isTrusted({ kind: 'mcp_server', server: attachment.server }, trust))?.server;
  return server ? originLabel({ kind: 'mcp_server', server }) : null;
}
