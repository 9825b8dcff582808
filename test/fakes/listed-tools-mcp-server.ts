// An MCP server (stdio, the SDK's low-level Server) whose `tools/list` answers exactly what
// LISTED_TOOLS says — names twice, schemas of any size — as a hostile or broken server would
// (issue 41 §7); `HUGE_SCHEMA_PROPERTIES=N` adds a tool `huge` with N properties. Every call
// answers "ok <name>".
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const listed = JSON.parse(process.env.LISTED_TOOLS ?? '[]') as { name: string; description?: string; inputSchema?: Record<string, unknown> }[];
const hugeProperties = Number(process.env.HUGE_SCHEMA_PROPERTIES ?? 0);
const tools = [
  ...listed.map((tool) => ({ description: `The ${tool.name} tool.`, inputSchema: { type: 'object' as const }, ...tool })),
  ...(hugeProperties > 0
    ? [{ name: 'huge', description: 'A tool with a very large schema.', inputSchema: { type: 'object' as const, properties: Object.fromEntries(Array.from({ length: hugeProperties }, (_, index) => [`p${index}`, { type: 'string', description: 'x'.repeat(40) }])) } }]
    : []),
];

const server = new Server({ name: 'listed', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `ok ${request.params.name}` }] }));
await server.connect(new StdioServerTransport());
