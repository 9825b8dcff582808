// Always-allow and deny rules (lib/tools/approval-rules.ts), for one session or for a persona.
import { randomUUID } from 'node:crypto';
import { processSlot } from '@/lib/process/process-state';
import { getDb, getStore } from './db';

// The shape of a rule as stored; lib/tools/approval-rules.ts matches calls against them.
export type RuleEffect = 'allow' | 'deny';
export type RuleScope = 'session' | 'persona';

export type RuleMatcher =
  /** Every call of the tool (MCP tools, or a user who trusts a tool entirely). */
  | { kind: 'tool' }
  /** bash: the same argv, word for word. */
  | { kind: 'command'; argv: string[] }
  /** bash: the command's argv starts with these words. */
  | { kind: 'command-prefix'; argv: string[] }
  /** python: exactly this source. */
  | { kind: 'code'; code: string }
  /** file tools: the target's real path relative to the workspace matches this glob. */
  | { kind: 'path-glob'; glob: string };

export interface ApprovalRule {
  id: string;
  tool: string;
  effect: RuleEffect;
  matcher: RuleMatcher;
}

export interface ToolRuleRecord extends ApprovalRule {
  scope: RuleScope;
  sessionId: string | null;
  personaName: string | null;
  createdAt: Date;
}

type RuleRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>['toolRule']['findFirstOrThrow']>>;

const toRecord = (row: RuleRow): ToolRuleRecord => ({
  id: row.id,
  scope: row.scope as RuleScope,
  sessionId: row.sessionId,
  personaName: row.personaName,
  tool: row.tool,
  effect: row.effect as RuleEffect,
  matcher: JSON.parse(row.matcher) as RuleMatcher,
  createdAt: row.createdAt,
});

/**
 * The version is bumped by every change of rules in this process: a reader may keep what it read
 * until then. What each session read is kept until this process changes a rule — SQLite only: its
 * file has one process; on PostgreSQL another process may change the rules, so each turn reads
 * them. Both in the process's state: a rule changed by a route must reach the minds (issue 72 §0).
 */
const rulesRead = processSlot('store.tool-rules', () => ({ version: 0, readIn: new WeakMap<object, Map<string, { version: number; rules: ToolRuleRecord[] }>>() })).value;
export const currentRulesVersion = () => rulesRead.version;

/** The rules in force for a session: its own and its persona's (read by every turn that may call a tool). */
export async function listRulesFor(input: { sessionId: string; personaName: string }): Promise<ToolRuleRecord[]> {
  const store = await getStore();
  const key = `${input.sessionId}\u0000${input.personaName}`;
  const readFor = store.kind === 'sqlite' ? (rulesRead.readIn.get(store.db) ?? rulesRead.readIn.set(store.db, new Map()).get(store.db)!) : null;
  const kept = readFor?.get(key);
  if (kept && kept.version === rulesRead.version) return kept.rules;
  const version = rulesRead.version;
  const rows = await (await getDb()).toolRule.findMany({
    where: { OR: [{ scope: 'session', sessionId: input.sessionId }, { scope: 'persona', personaName: input.personaName }] },
    orderBy: { createdAt: 'asc' },
  });
  const rules = rows.map(toRecord);
  if (readFor) {
    if (readFor.size >= 1_000) readFor.delete(readFor.keys().next().value!);
    readFor.set(key, { version, rules });
  }
  return rules;
}

export async function listRules(input: { sessionId?: string; personaName?: string } = {}): Promise<ToolRuleRecord[]> {
  const db = await getDb();
  const rows = await db.toolRule.findMany({
    where: { ...(input.sessionId && { sessionId: input.sessionId }), ...(input.personaName && { personaName: input.personaName }) },
    orderBy: { createdAt: 'asc' },
    take: 1000,
  });
  return rows.map(toRecord);
}

export async function insertRule(input: {
  scope: RuleScope;
  sessionId?: string | null;
  personaName?: string | null;
  tool: string;
  effect: RuleEffect;
  matcher: RuleMatcher;
}): Promise<ToolRuleRecord> {
  const db = await getDb();
  rulesRead.version += 1;
  const row = await db.toolRule.create({
    data: {
      id: randomUUID(),
      scope: input.scope,
      sessionId: input.scope === 'session' ? (input.sessionId ?? null) : null,
      personaName: input.scope === 'persona' ? (input.personaName ?? null) : null,
      tool: input.tool,
      effect: input.effect,
      matcher: JSON.stringify(input.matcher),
    },
  });
  rulesRead.version += 1; // again once written: a read between the two kept nothing
  return toRecord(row);
}

export async function deleteRule(input: { id: string }): Promise<boolean> {
  const db = await getDb();
  rulesRead.version += 1;
  const deleted = await db.toolRule.deleteMany({ where: { id: input.id } });
  rulesRead.version += 1;
  return deleted.count === 1;
}
