// State lives once (issue 72 §0). The server loads every lib/ module twice — its own bundle and
// the copies inside Next's route bundles — so a module-level cache, counter or version is two of
// them: a tool rule revoked through a route bumped one copy's version while the minds read the
// other's, and kept running bash without a card. This scan refuses, in every lib/ module the
// running app loads, what would be kept per copy: a module-level `let`, a module-level Map, Set,
// array or object that the module changes, and a home of its own on globalThis. Such state
// belongs in lib/process (processSlot). A constant table (a Set never added to) is fine.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processSlot, processSlotNames } from '@/lib/process/process-state';
import { importGraph, reachableFrom, root } from '../support/source-graph';

/** What in this module's text would be kept once per copy of the module. */
export function perCopyState(text: string): string[] {
  const found: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const match of code.matchAll(/^(?:export )?let (\w+)/gm)) found.push(`let ${match[1]}`);
  for (const match of code.matchAll(/^(?:export )?(?:const|var) (\w+)(?::[^=\n]+)? = (new (?:Map|Set|WeakMap|WeakSet|Array)\b|\[|\{)/gm)) {
    const name = match[1]!;
    const changed = new RegExp(`\\b${name}(?:\\.(?:set|add|delete|clear|push|pop|shift|unshift|splice)\\(|\\.\\w+\\s*(?:[-+*]?=(?!=)|\\+\\+|--)|\\[[^\\]]+\\]\\s*=(?!=))`);
    if (changed.test(code)) found.push(`${name} (changed in place)`);
  }
  if (/\bglobalThis\b/.test(code)) found.push('globalThis (a home of its own)');
  return found;
}

const graph = importGraph();
const routeBundles = [...graph.keys()].filter((file) => file.startsWith('app/'));
const loaded = [...reachableFrom(graph, ['server.ts', ...routeBundles])].filter((file) => file.startsWith('lib/'));
const fromServer = reachableFrom(graph, ['server.ts']);
const shared = new Set([...reachableFrom(graph, routeBundles)].filter((file) => fromServer.has(file)));

describe('process state lives once', () => {
  it('the scan finds per-copy state (positive control: the text that kept running revoked rules)', () => {
    const before = [
      "/** Bumped by every change of rules in this process: a reader may keep what it read until then. */",
      'let rulesVersion = 0;',
      'const readIn = new WeakMap<object, Map<string, { version: number }>>();',
      'export function bump() { rulesVersion += 1; readIn.set(key, new Map()); }',
      'const held = globalThis as typeof globalThis & { __x?: number };',
      'const lanes: Record<string, number> = {};',
      "export function lane(id: string) { lanes[id] = 1; }",
    ].join('\n');
    expect(perCopyState(before)).toEqual(['let rulesVersion', 'readIn (changed in place)', 'lanes (changed in place)', 'globalThis (a home of its own)']);
    // What is not state: a constant table, a slot, a let inside a function, a comment.
    const after = [
      "const FINAL = new Set(['denied', 'expired']);",
      "const rules = processSlot('store.tool-rules', () => ({ version: 0 })).value;",
      'export function bump() { let local = 0; local += 1; rules.version += 1; return FINAL.has("x") && local; }',
      '// let commented = 0;',
    ].join('\n');
    expect(perCopyState(after)).toEqual([]);
  });

  it('the modules the route bundles and the server share are the ones that broke (the graph is real)', () => {
    expect(shared.has('lib/store/tool-rules-repository.ts')).toBe(true);
    expect(shared.has('lib/skills/skill-files.ts')).toBe(true);
    expect(shared.size).toBeGreaterThan(100);
    expect(loaded).toContain('lib/realtime/socket-server.ts'); // the server's alone: scanned too, a route may import it tomorrow
  });

  it('no module the app loads keeps state of its own: only lib/process does', () => {
    const offenders = loaded
      .filter((file) => !file.startsWith('lib/process/') && !file.startsWith('lib/generated/'))
      .flatMap((file) => perCopyState(fs.readFileSync(path.join(root, file), 'utf8')).map((what) => `${file}${shared.has(file) ? ' (routes and server)' : ''}: ${what}`));
    expect(offenders).toEqual([]);
  });

  it('each slot has a name of its own (two modules asking for one name would share by mistake)', () => {
    const names = loaded.flatMap((file) => [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/processSlot(?:<[^(]*>)?\('([^']+)'/g)].map((match) => match[1]!));
    expect(names.length).toBeGreaterThan(30);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });

  it('a slot is one object for every copy of a module: a second copy of the registry sees the first one’s state', async () => {
    const name = `test.slot-${Date.now()}`;
    processSlot(name, () => ({ count: 0 })).value.count += 2;
    // A fresh copy of the module, as a route bundle would have it.
    const copy = (await import(`${path.join(root, 'lib/process/process-state.ts')}?copy=${Date.now()}`)) as typeof import('@/lib/process/process-state');
    expect(copy.processSlot(name, () => ({ count: 0 })).value.count).toBe(2);
    expect(copy.processSlotNames()).toContain(name);
    expect(processSlotNames()).toEqual(copy.processSlotNames());
  });
});
