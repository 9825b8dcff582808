// The benign tests' MCP server as a user would add it (issue 44): test/fakes/news-mcp-server.ts
// connected, its descriptions approved, its write tool `send_report` auto-approved.
import path from 'node:path';
import type { McpSettings } from '@/lib/config/mcp-config';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { writeMcpSettings } from '@/lib/store/settings-repository';

export async function addNewsServer(): Promise<void> {
  const pool = getOrchestrator().mcp;
  let settings: McpSettings = {
    mcpServers: { news: { command: process.execPath, args: ['--import', 'tsx', path.resolve('test/fakes/news-mcp-server.ts')], env: {} } },
    tools: { news: { send_report: { auto_approve: true } } },
    disabled: [],
  };
  await writeMcpSettings(settings);
  await pool.configure(settings);
  await pool.settled();
  settings = pool.withDescriptionsApproved('news');
  await writeMcpSettings(settings);
  await pool.configure(settings);
  await pool.settled();
}
