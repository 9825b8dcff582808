// Always-allow (and deny) rules, matched structurally, never as text prefixes (issue 15 §4).
// A bash rule matches an exact command or an argv prefix, and only a command that is a plain
// list of words: anything a shell would treat as an operator, a substitution, a redirection or
// a variable — `; && || | & $( \` > <`, a newline, `$`, braces, globs' brackets — never matches,
// so `git status; rm -rf ~` cannot ride on a `git status` rule (Claude Code #4956, #28784,
// #94314). File rules are globs on the real path inside the workspace. Deny beats allow.
import path from 'node:path';
import type { ApprovalRule, RuleMatcher } from '@/lib/store/tool-rules-repository';

/** Characters a plain word may hold outside quotes. Everything else makes a command unmatchable. */
const PLAIN_WORD_CHARACTER = /[A-Za-z0-9_@%+=:,./-]/;

/**
 * Splits a command into words when it is nothing but words (with '…' and "…" quoting);
 * returns null for anything a shell could run as more than one command or expand.
 */
export function plainCommandWords(command: string): string[] | null {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  for (let index = 0; index < command.length; index += 1) {
    const character = command.charAt(index);
    if (character === ' ' || character === '\t') {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
      continue;
    }
    if (character === "'") {
      const end = command.indexOf("'", index + 1);
      if (end === -1) return null;
      current += command.slice(index + 1, end);
      index = end;
      inWord = true;
      continue;
    }
    if (character === '"') {
      const end = command.indexOf('"', index + 1);
      if (end === -1) return null;
      const inside = command.slice(index + 1, end);
      // Inside double quotes the shell still expands $… and `…`, and \ escapes.
      if (/[$`\\!]/.test(inside)) return null;
      current += inside;
      index = end;
      inWord = true;
      continue;
    }
    if (!PLAIN_WORD_CHARACTER.test(character)) return null;
    current += character;
    inWord = true;
  }
  if (inWord) words.push(current);
  if (words.length === 0) return null;
  // `FOO=bar cmd` runs cmd with a changed environment (PATH=…, LD_PRELOAD=…): never plain.
  if (words[0]?.includes('=')) return null;
  // Control characters hidden in quotes (a carriage return, an escape sequence) are not plain either.
  if (words.some((word) => /[\u0000-\u001f\u007f]/.test(word))) return null;
  return words;
}

/** `*` any run of characters but `/`, `**` any run including `/`, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index += 1) {
    const character = glob.charAt(index);
    if (character === '*') {
      if (glob[index + 1] === '*') {
        source += '.*';
        index += 1;
        if (glob[index + 1] === '/') index += 1;
      } else source += '[^/]*';
    } else if (character === '?') source += '[^/]';
    else source += character.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export interface CallFacts {
  tool: string;
  /** bash's command line. */
  command?: string;
  /** python's source. */
  code?: string;
  /** File tools: the target's real path relative to the workspace (null when outside or unknown). */
  workspacePath?: string | null;
}

export function ruleMatches(rule: ApprovalRule, call: CallFacts): boolean {
  if (rule.tool !== call.tool) return false;
  const matcher = rule.matcher;
  switch (matcher.kind) {
    case 'tool':
      return true;
    case 'command':
    case 'command-prefix': {
      if (call.command === undefined) return false;
      const words = plainCommandWords(call.command);
      if (!words) return false;
      if (matcher.kind === 'command') {
        return words.length === matcher.argv.length && words.every((word, index) => word === matcher.argv[index]);
      }
      return matcher.argv.length > 0 && matcher.argv.every((word, index) => words[index] === word);
    }
    case 'code':
      return call.code !== undefined && call.code === matcher.code;
    case 'path-glob': {
      const target = call.workspacePath;
      if (!target || target.startsWith('..') || path.isAbsolute(target)) return false;
      return globToRegExp(matcher.glob).test(target);
    }
    default: {
      const unreachable: never = matcher;
      return unreachable;
    }
  }
}

export type RuleVerdict = { verdict: 'deny'; rule: ApprovalRule } | { verdict: 'allow'; rule: ApprovalRule } | { verdict: 'ask' };

/** Deny beats allow; no match means a person decides. */
export function decideByRules(rules: readonly ApprovalRule[], call: CallFacts): RuleVerdict {
  const matching = rules.filter((rule) => ruleMatches(rule, call));
  const deny = matching.find((rule) => rule.effect === 'deny');
  if (deny) return { verdict: 'deny', rule: deny };
  const allow = matching.find((rule) => rule.effect === 'allow');
  if (allow) return { verdict: 'allow', rule: allow };
  return { verdict: 'ask' };
}

/** The rule "always allow" on a card creates: the exact command, the exact code, or the tool. */
export function matcherForAlwaysAllow(call: CallFacts): RuleMatcher | null {
  if (call.tool === 'bash') {
    const words = call.command === undefined ? null : plainCommandWords(call.command);
    // A compound command cannot become a rule: it would be approved again as a whole next time.
    return words ? { kind: 'command', argv: words } : null;
  }
  if (call.tool === 'python') return call.code === undefined ? null : { kind: 'code', code: call.code };
  return { kind: 'tool' };
}
