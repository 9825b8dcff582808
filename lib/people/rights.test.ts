// The rights authority's rules on facts (issue 58): the trait rule and its tool contract (every tool
// the app can offer declares what it does, so a guest is offered only what is declared safe), the
// card, memory and session rules, and docs/channels.md's table, made from these same rules.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { signInSurvives } from './web-reach';
import { builtinTools } from '@/lib/agent/tool-registry';
import { searchToolsTool } from '@/lib/agent/tool-search';
import { LoadedTools } from '@/lib/agent/tool-search';
import type { BrowserPool } from '@/lib/browser/browser-pool';
import { loadSkillTool } from '@/lib/skills/skill-tools';
import { delegateTool } from '@/lib/tasks/delegate-tool';
import { noteTool } from '@/lib/tasks/task-notes';
import { emptyStepRequests, taskTools } from '@/lib/tasks/task-turn';
import { browserTools } from '@/lib/tools/browser-tools';
import { httpTools } from '@/lib/tools/http-tool';
import { postgresTools } from '@/lib/tools/postgres-tool';
import type { Tool } from '@/lib/tools/tool-types';
import { callTool, cardRule, memoryRule, offerTool, peopleChangeRule, rightsTable, sessionRule, type Conversation } from './rights';
import { ROLE_TRAITS, TOOL_TRAITS, traitsOf, type ToolTrait } from './tool-traits';

/** Every tool the app can put before a model, each kind built as its room builds it (definitions only; nothing runs). */
function everyTool(): Tool[] {
  return [
    ...builtinTools,
    ...taskTools(emptyStepRequests()),
    delegateTool({} as never),
    noteTool({ id: 'task', sessionId: 'session' }),
    loadSkillTool(() => []),
    searchToolsTool([], new LoadedTools()) as Tool,
    ...httpTools({ allowed_hosts: ['example.com'], allow_private: false } as never),
    ...postgresTools({ connection: 'postgres://127.0.0.1/x', allow_writes: true } as never),
    ...browserTools({ allowed_hosts: ['example.com'] } as never, {} as BrowserPool, 'session'),
  ];
}

const asRole = (role: 'owner' | 'trusted' | 'guest'): Conversation => ({ sessionId: 's', people: [], traits: new Set(ROLE_TRAITS[role]) });

describe('tools declare what they do', () => {
  it('every tool the app can offer declares its traits (a new tool without them fails here)', () => {
    const tools = everyTool();
    expect(tools.length).toBeGreaterThan(35);
    const undeclared = tools.filter((tool) => !tool.traits?.length).map((tool) => tool.definition.name);
    expect(undeclared).toEqual([]);
    for (const tool of tools) for (const trait of tool.traits!) expect(TOOL_TRAITS).toContain(trait);
  });

  it("a guest's conversation is offered only what is declared safe for guests", () => {
    const offered = everyTool().filter((tool) => offerTool(asRole('guest'), tool.definition.name, tool.traits).verdict === 'allow').map((tool) => tool.definition.name);
    for (const name of ['bash', 'python', 'schedule', 'delegate', 'http_get', 'http_request', 'postgres_query', 'postgres_execute', 'browser_open', 'browser_snapshot', 'browser_type', 'browser_pdf']) expect(offered).not.toContain(name);
    for (const name of ['read_file', 'write_file', 'recall', 'remember', 'journal', 'forget_memory', 'view_image', 'load_skill', 'finish_task']) expect(offered).toContain(name);
  });

  it('a tool that declares nothing is refused wherever someone is limited, offered in an unlimited conversation', () => {
    expect(offerTool(asRole('guest'), 'mystery', undefined)).toMatchObject({ verdict: 'refuse', reason: expect.stringMatching(/does not say what it does/) });
    expect(offerTool(asRole('trusted'), 'mystery', undefined)).toEqual({ verdict: 'allow' });
  });

  it('a call that would share a memory asks the owner, whoever\'s conversation it is; one a role may not do is refused', () => {
    for (const role of ['owner', 'trusted', 'guest'] as const) expect(callTool(asRole(role), 'remember', ['writes_memory'], ['shares_memory'])).toMatchObject({ verdict: 'ask', whom: 'owner' });
    expect(callTool(asRole('guest'), 'remember', ['writes_memory'], [])).toEqual({ verdict: 'allow' });
    expect(callTool(asRole('guest'), 'bash', ['runs_code'])).toMatchObject({ verdict: 'refuse', reason: expect.stringMatching(/run code/) });
  });

  it("the owner's changes for one person widen or narrow their role; the owner's own are never narrowed", () => {
    const has = (traits: Set<ToolTrait>, trait: ToolTrait) => traits.has(trait);
    expect(has(traitsOf({ role: 'guest', rights: { allow: ['browses'], deny: [] } }), 'browses')).toBe(true);
    expect(has(traitsOf({ role: 'trusted', rights: { allow: [], deny: ['runs_code'] } }), 'runs_code')).toBe(false);
    expect(has(traitsOf({ role: 'owner', rights: { allow: [], deny: ['runs_code'] } }), 'runs_code')).toBe(true);
    expect(has(traitsOf({ role: 'guest', rights: { allow: ['not-a-trait'], deny: [] } }), 'runs_code')).toBe(false);
  });
});

describe('cards, memories, sessions, people', () => {
  it('a card: the owner any; a trusted person their own conversation only, never an owner-only one nor a rule for the persona; a guest, a weak identity, a stranger none', () => {
    const allow = (input: Parameters<typeof cardRule>[0]) => cardRule(input).verdict === 'allow';
    expect(allow({ role: 'owner', ownerOnly: true, inConversation: false, rule: 'persona' })).toBe(true);
    expect(allow({ role: 'trusted', ownerOnly: false, inConversation: true })).toBe(true);
    expect(allow({ role: 'trusted', ownerOnly: false, inConversation: true, rule: 'session' })).toBe(true);
    expect(allow({ role: 'trusted', ownerOnly: false, inConversation: true, rule: 'persona' })).toBe(false);
    expect(allow({ role: 'trusted', ownerOnly: true, inConversation: true })).toBe(false);
    expect(allow({ role: 'trusted', ownerOnly: false, inConversation: false })).toBe(false);
    expect(allow({ role: 'guest', ownerOnly: false, inConversation: true })).toBe(false);
    expect(allow({ role: 'owner', weakIdentity: 'no account', ownerOnly: false, inConversation: true })).toBe(false);
    expect(allow({ role: null, ownerOnly: false, inConversation: false })).toBe(false);
  });

  it('a memory the conversation may not read answers exactly as one that does not exist; a shared one is changed by the owner alone', () => {
    expect(memoryRule({ id: 7, readable: false, shared: false, ownersAlone: true, operation: 'forget' })).toEqual({ verdict: 'refuse', reason: 'There is no memory #7 for this persona' });
    expect(memoryRule({ id: 7, readable: true, shared: false, ownersAlone: false, operation: 'forget' })).toEqual({ verdict: 'allow' });
    expect(memoryRule({ id: 7, readable: true, shared: true, ownersAlone: false, operation: 'change' }).verdict).toBe('refuse');
    expect(memoryRule({ id: 7, readable: true, shared: false, ownersAlone: false, operation: 'share' }).verdict).toBe('refuse');
    expect(memoryRule({ id: 7, readable: true, shared: false, ownersAlone: true, operation: 'share' }).verdict).toBe('allow');
  });

  it('a session: the owner every one, a person their own; one owner, never removed nor merged away', () => {
    expect(sessionRule({ role: 'trusted', member: false }).verdict).toBe('refuse');
    expect(sessionRule({ role: 'guest', member: true }).verdict).toBe('allow');
    expect(peopleChangeRule({ personId: 'p1', change: 'role', role: 'owner' }).verdict).toBe('refuse');
    expect(peopleChangeRule({ personId: 'owner', change: 'role', role: 'trusted' }).verdict).toBe('refuse');
    expect(peopleChangeRule({ personId: 'owner', change: 'forget' }).verdict).toBe('refuse');
    expect(peopleChangeRule({ personId: 'owner', change: 'merge_away' }).verdict).toBe('refuse');
    expect(peopleChangeRule({ personId: 'owner', change: 'rights' }).verdict).toBe('refuse');
    expect(peopleChangeRule({ personId: 'p1', change: 'rights' }).verdict).toBe('allow');
  });

  it("docs/channels.md's table of what each role may do is the authority's own", () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/channels.md'), 'utf8');
    const begin = '<!-- rights-table: made by rightsTable() in lib/people/rights.ts -->';
    const start = doc.indexOf(begin);
    expect(start, 'docs/channels.md lacks the rights table marker').toBeGreaterThan(-1);
    const table = doc.slice(start + begin.length).trim().split('\n\n')[0]!.trim();
    expect(table).toBe(rightsTable());
  });
});

describe('signed-in browsers through a role change (issue 61)', () => {
  it('stay when the role keeps or widens its rights; end when it narrows them', () => {
    expect(signInSurvives('guest', 'trusted')).toBe(true);
    expect(signInSurvives('trusted', 'trusted')).toBe(true);
    expect(signInSurvives('trusted', 'guest')).toBe(false);
  });
});
