// The project's own source files and the imports between them, as the architecture tests read
// them: every .ts/.tsx of lib/, components/, app/ and server.ts (tests, e2e and benchmarks may
// import anything), and each file's static, type-only, re-exported and dynamic imports.
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');

export function sourceFiles(): string[] {
  const found: string[] = ['server.ts'];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(path.join(root, folder), { withFileTypes: true })) {
      const relative = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (relative !== 'lib/generated') walk(relative);
      } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) found.push(relative);
    }
  };
  for (const top of ['lib', 'components', 'app']) walk(top);
  return found;
}

export function roomOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'lib') return `lib/${parts[1]}`;
  return parts[0]!;
}

/** Every project file a file imports (static and type-only imports, re-exports, dynamic imports). */
export function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const targets: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)) {
    const spec = match[1]!;
    let target: string;
    if (spec.startsWith('@/')) target = spec.slice(2);
    else if (spec.startsWith('.')) target = path.normalize(path.join(path.dirname(file), spec));
    else continue;
    const resolved = [`${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts'), target].find((candidate) => fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile());
    if (resolved) targets.push(resolved);
  }
  return targets;
}

/** The import graph of every source file. */
export function importGraph(): Map<string, string[]> {
  return new Map(sourceFiles().map((file) => [file, importsOf(file)]));
}

/** Every file reachable from these through the graph (themselves included). */
export function reachableFrom(graph: Map<string, string[]>, starts: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...starts];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...(graph.get(file) ?? []));
  }
  return seen;
}
