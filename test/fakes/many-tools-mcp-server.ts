// An MCP server (stdio, the SDK's own) with as many tools as asked — `node --import tsx
// many-tools-mcp-server.ts 200` — shaped like real ones: a sentence of description and three
// described parameters each, across four made-up services. For tool search's tests and bench.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const count = Number(process.argv[2] ?? '200');
const verbs = ['create', 'update', 'delete', 'list', 'get', 'search', 'archive', 'assign', 'comment', 'close'];
const things = ['issue', 'pull_request', 'branch', 'release', 'label', 'milestone', 'project', 'page', 'ticket', 'alert'];
const services = ['github', 'linear', 'notion', 'sentry'];

const server = new McpServer({ name: 'many-tools', version: '1.0.0' });
for (let index = 0; index < count; index++) {
  const verb = verbs[index % verbs.length]!;
  const thing = things[Math.floor(index / verbs.length) % things.length]!;
  const service = services[index % services.length]!;
  server.registerTool(
    `${service}_${verb}_${thing}_${index}`,
    {
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${thing.replace('_', ' ')} in ${service}. Use this when the user asks to ${verb} a ${thing.replace('_', ' ')}; it returns the ${thing.replace('_', ' ')} as ${service} shows it, with its identifier and link.`,
      inputSchema: {
        id: z.string().describe(`The ${thing.replace('_', ' ')}'s identifier as ${service} shows it`),
        workspace: z.string().optional().describe(`The ${service} workspace or organisation; the default one when absent`),
        note: z.string().optional().describe('Free text to attach to the change, shown in its history'),
      },
    },
    async ({ id }) => ({ content: [{ type: 'text', text: `${verb} ${thing} ${id}: done` }] }),
  );
}
await server.connect(new StdioServerTransport());
