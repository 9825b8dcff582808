// The floors of the house (issue 27; docs/architecture.md opens with the same table). A room may
// import only rooms on a lower floor — never one beside it or above it — and no file may reach
// itself through its imports. A new room gets a row here before it gets its first import; the
// test reads every import of lib/, components/, app/ and server.ts (tests, e2e and benchmarks
// may import anything).
import { describe, expect, it } from 'vitest';
import { importsOf, roomOf, sourceFiles } from '../support/source-graph';

/** Floor per room; rooms on one floor know nothing of each other. */
export const floors: Record<string, number> = {
  'lib/process': -1, // the process's one home for state kept between calls (issue 72 §0): every module copy shares it
  'lib/generated': 0, // Prisma's generated clients
  'lib/clock': 0,
  'lib/errors': 0, // what went wrong, as a line (issue 66): an Error's message or the text of whatever else was thrown
  'lib/security': 0,
  'lib/telemetry': 0, // traces on OpenTelemetry's GenAI conventions (issue 65): a facade that loads the SDK only when asked
  'lib/config': 1,
  'lib/store': 2,
  'lib/backends': 2,
  'lib/personas': 2,
  'lib/attachments': 2, // what an attached file is; images made ready for a model (issue 33)
  'lib/engine': 3,
  'lib/backup': 3.5, // whole-app backups and restores (issue 63): the store, the data folder, the sealed secrets
  'lib/mind': 4, // the mind kernel: events, tags, pacing, tokens, model calls, outcomes
  'lib/people': 4.2, // the rights authority (issue 58): who may do what, asked by every path above it
  'lib/web-auth': 4.3, // people on the web (issue 61): passkeys, signed-in browsers, invites, who a request is
  'lib/voice': 4.4, // speech to text and back (issue 76): the speech server's settings and its calls
  'lib/browser': 4.5, // the agent's Chromium: its launcher, egress proxy and sessions (issue 45); the tools drive it
  'lib/tools': 5,
  'lib/mcp': 5.5, // MCP servers as tools (issue 66 §2): the client, its OAuth, catalog, screening, attachments and elicitations, on the tool contract below
  'lib/capabilities': 6,
  'lib/memory': 6,
  'lib/tasks': 7,
  'lib/crew': 7, // seed 001's crew: its personas and graphs, installed by "Try the crew" (issue 34)
  'lib/agent': 8,
  'lib/channels': 8, // Telegram, Discord, Slack, IRC and email: the page's calls, from a chat
  'lib/session-mind': 8.5, // the mind as it runs (issue 66): the Subconscious loop, the Internal Dialog's turns, their memory and queue
  'lib/triggers': 6, // schedules and webhooks: what wakes a mind at a time or on a call
  'lib/skills': 6, // SKILL.md folders, the prompt's list, load_skill (issue 34)
  'lib/orchestrator': 9, // the app's wiring: minds to sessions, placement in the cluster, the hosts the rooms below are given
  'lib/http': 10,
  'lib/setup': 10,
  'lib/realtime': 11,
  components: 12,
  app: 13,
  'server.ts': 13,
};

const files = sourceFiles();
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe('the floors of the house', () => {
  it('every room has a floor', () => {
    const rooms = new Set(files.map(roomOf));
    expect([...rooms].filter((room) => floors[room] === undefined)).toEqual([]);
  });

  it('no import runs up a floor or across one', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const from = roomOf(file);
        const to = roomOf(target);
        if (from === to) continue;
        if ((floors[to] ?? Infinity) >= (floors[from] ?? -Infinity)) upward.push(`${file} → ${target} (${from} ${floors[from]} → ${to} ${floors[to]})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('no file reaches itself through its imports', () => {
    // Tarjan's strongly connected components: any component of more than one file is a circle.
    let index = 0;
    const order = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    const visit = (file: string) => {
      order.set(file, index);
      low.set(file, index++);
      stack.push(file);
      onStack.add(file);
      for (const target of graph.get(file) ?? []) {
        if (!order.has(target)) {
          visit(target);
          low.set(file, Math.min(low.get(file)!, low.get(target)!));
        } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, order.get(target)!));
      }
      if (low.get(file) === order.get(file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== file);
        if (component.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(component.sort());
      }
    };
    for (const file of graph.keys()) if (!order.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it('the check sees imports at all (a parser that found none would pass everything)', () => {
    expect(graph.get('lib/orchestrator/orchestrator.ts')!.length).toBeGreaterThan(10);
    expect(graph.get('server.ts')).toContain('lib/orchestrator/orchestrator.ts');
    expect(files.length).toBeGreaterThan(150);
  });
});
