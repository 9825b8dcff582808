// Issue 41 §7: what a hostile server's `tools/list` may do to the model's tools. A name listed
// twice reaches the model once; a schema over the cap (size or depth) is left out; two servers
// whose names map to the same model name (`x` + `y__z`, `x__y` + `z`) get unique ones — each
// decision a note in the server's status, as Settings shows it. Real stdio servers.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyMcpSettings } from '@/lib/config/mcp-config';
import { McpPool } from '@/lib/mcp/mcp-pool';
import { MAX_SCHEMA_DEPTH } from '@/lib/mcp/mcp-tool-screen';

const script = path.resolve('test/fakes/listed-tools-mcp-server.ts');
const server = (tools: unknown[], env: Record<string, string> = {}) => ({ command: process.execPath, args: ['--import', 'tsx', script], env: { LISTED_TOOLS: JSON.stringify(tools), ...env } });
const deep = (levels: number): Record<string, unknown> => (levels === 0 ? { type: 'string' } : { type: 'object', properties: { a: deep(levels - 1) } });

const pool = new McpPool();
afterAll(() => pool.stop());

async function ready(names: string[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!names.every((name) => pool.status().find((status) => status.name === name)?.state === 'ready')) {
    if (Date.now() > deadline) throw new Error(`not ready: ${JSON.stringify(pool.status().map((status) => [status.name, status.state, status.last_error]))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a hostile tools/list', () => {
  it('duplicates once, oversized and too-deep schemas left out, clashing names made unique — each with a note', async () => {
    await pool.configure({
      ...emptyMcpSettings,
      mcpServers: {
        x: server([{ name: 'y__z' }, { name: 'dup' }, { name: 'dup', description: 'the second dup' }, { name: 'deep', inputSchema: deep(MAX_SCHEMA_DEPTH + 2) }, { name: 'fine', inputSchema: deep(3) }], { HUGE_SCHEMA_PROPERTIES: '2000' }),
        x__y: server([{ name: 'z' }]),
      },
    });
    await ready(['x', 'x__y']);
    const names = pool.tools().map((tool) => tool.definition.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((name) => name === 'x__dup')).toHaveLength(1);
    expect(names).not.toContain('x__huge');
    expect(names).not.toContain('x__deep');
    expect(names).toContain('x__fine');
    // `x` sorts first and keeps x__y__z; `x__y`'s `z` is renamed, and still runs.
    expect(names).toContain('x__y__z');
    const renamed = names.find((name) => name.startsWith('x__y__z_'))!;
    expect(renamed).toMatch(/^x__y__z_[0-9a-f]{6}$/);
    const run = await pool.tools().find((tool) => tool.definition.name === renamed)!.run({}, { sessionId: 's', workspaceDir: '/tmp', signal: new AbortController().signal });
    expect(run).toMatchObject({ isError: false, content: 'ok z' });
    const requestBytes = JSON.stringify(pool.tools().map((tool) => tool.definition)).length;
    expect(requestBytes).toBeLessThan(20_000);

    const [x, xy] = [pool.status().find((status) => status.name === 'x')!, pool.status().find((status) => status.name === 'x__y')!];
    expect(x.notes).toEqual([
      expect.stringContaining('lists the tool "dup" more than once'),
      expect.stringMatching(/"deep" is left out: its input schema nests deeper than 16 levels/),
      expect.stringMatching(/"huge" is left out: its input schema is [\d,]+ characters/),
    ]);
    expect(xy.notes).toEqual([expect.stringContaining(`offered to the model as ${renamed}: x__y__z is already x · y__z's`)]);
    expect(x.tools.map((tool) => tool.model_name).sort()).toEqual(['x__dup', 'x__fine', 'x__y__z']);
  }, 40_000);
});
