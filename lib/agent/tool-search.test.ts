// Tool search (issue 30): above the budget the MCP tools' definitions are replaced by
// `search_tools`; what it loads is appended in load order, so the definitions before it — the
// cached prompt prefix — never change; below the budget nothing changes at all.
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { Tool } from '@/lib/tools/tool-types';
import { builtinTools, ToolRegistry } from './tool-registry';
import { definitionTokens, LoadedTools, rankTools, SEARCH_TOOLS_NAME } from './tool-search';

function mcpTool(server: string, name: string, description: string): Tool {
  return {
    definition: { name: `${server}__${name}`, description: `${description} (from the MCP server "${server}")`, inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'The identifier of the thing to act on, as the service shows it' } } } },
    approval: 'required',
    source: { mcpServer: server },
    args: z.record(z.string(), z.unknown()),
    describeCall: () => name,
    run: async () => ({ isError: false, content: `${name} ran` }),
  };
}

const verbs = ['create', 'update', 'delete', 'list', 'get', 'search', 'archive', 'assign', 'comment', 'close'];
const things = ['issue', 'pull_request', 'branch', 'release', 'label', 'milestone', 'project', 'page', 'ticket', 'alert'];
const many = (count: number) =>
  Array.from({ length: count }, (_, index) => {
    const server = ['github', 'linear', 'notion', 'sentry'][index % 4]!;
    const verb = verbs[index % verbs.length]!;
    const thing = things[Math.floor(index / verbs.length) % things.length]!;
    return mcpTool(server, `${verb}_${thing}_${index}`, `${verb} a ${thing.replace('_', ' ')} in ${server}`);
  });
const context = { sessionId: 's', workspaceDir: '/tmp', signal: new AbortController().signal };

describe('tool search', () => {
  test('200 MCP tools over the budget: the model sees search_tools instead of them', () => {
    const tools = many(200);
    expect(definitionTokens(tools)).toBeGreaterThan(8_000);
    const registry = ToolRegistry.forSession({}, tools, [], { loaded: new LoadedTools(), budgetTokens: 8_000 });
    expect(registry.searching).toBe(true);
    const names = registry.definitions().map((definition) => definition.name);
    expect(names).toEqual([...builtinTools.map((tool) => tool.definition.name), SEARCH_TOOLS_NAME]);
    // What the prompt carries: the built-ins and one search tool, a small fraction of the 200.
    const shown = registry.definitions().map((definition) => registry.get(definition.name)!);
    expect(definitionTokens(shown) - definitionTokens(builtinTools)).toBeLessThan(definitionTokens(tools) / 20);
  });

  test('a search loads the matches; each load only appends, so the prefix stays', async () => {
    const loaded = new LoadedTools();
    const registry = ToolRegistry.forSession({}, many(200), [], { loaded, budgetTokens: 8_000 });
    const before = JSON.stringify(registry.definitions());
    const first = await registry.get(SEARCH_TOOLS_NAME)!.run({ query: 'create issue github', limit: 2 }, context);
    expect(first.content).toMatch(/Loaded 2 tool\(s\)/);
    const afterFirst = registry.definitions();
    expect(afterFirst.slice(-2).map((definition) => definition.name)).toEqual(loaded.list());
    expect(JSON.stringify(afterFirst).startsWith(before.slice(0, -1))).toBe(true);
    await registry.get(SEARCH_TOOLS_NAME)!.run({ query: 'sentry alert', limit: 1 }, context);
    const afterSecond = JSON.stringify(registry.definitions());
    expect(afterSecond.startsWith(JSON.stringify(afterFirst).slice(0, -1))).toBe(true);
    expect(loaded.list()).toHaveLength(3);
    // The same search again loads nothing new; a search with no match says so.
    expect((await registry.get(SEARCH_TOOLS_NAME)!.run({ query: 'create issue github', limit: 2 }, context)).content).toContain('already loaded');
    expect((await registry.get(SEARCH_TOOLS_NAME)!.run({ query: 'zzzz', limit: 2 }, context)).content).toMatch(/No tool matches/);
  });

  test('what a search finds ranks names above descriptions', () => {
    const found = rankTools(many(200), 'create issue', 3).map((tool) => tool.definition.name);
    expect(found[0]).toMatch(/__create_issue_/);
  });

  test('below the budget (10 tools), or with search off, every definition is there as before', () => {
    const few = ToolRegistry.forSession({}, many(10), [], { loaded: new LoadedTools(), budgetTokens: 8_000 });
    expect(few.searching).toBe(false);
    expect(few.definitions()).toHaveLength(builtinTools.length + 10);
    const off = ToolRegistry.forSession({}, many(200), [], { loaded: new LoadedTools(), budgetTokens: 0 });
    expect(off.definitions()).toHaveLength(builtinTools.length + 200);
  });

  test("a task's allowed tools narrow the searchable ones too", async () => {
    const tools = many(200);
    const registry = ToolRegistry.forSession({}, tools, [], { loaded: new LoadedTools(), budgetTokens: 8_000 });
    const allowed = ['read_file', tools[0]!.definition.name];
    const narrowed = registry.narrowed(allowed, []);
    expect(narrowed.searching).toBe(true);
    const result = await narrowed.get(SEARCH_TOOLS_NAME)!.run({ query: 'github linear notion sentry create update', limit: 10 }, context);
    expect(result.content.match(/^- /gm)).toHaveLength(1);
  });
});
