// This process's children and descendants from /proc (Linux): for checks that no child outlives
// its work (RELIABILITY.md: "child count back to baseline").
import fs from 'node:fs';

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return ''; // the process is gone, or not ours to read
  }
}

/** Direct children of `pid`, from every thread's `children` list. */
export function childPids(pid: number | 'self' = 'self'): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => read(`/proc/${pid}/task/${task}/children`).trim().split(/\s+/).filter(Boolean).map(Number));
}

/** Every descendant of this process whose command line mentions `word` (all of them without). */
export function descendantPids(word = ''): number[] {
  const found = childPids();
  for (let index = 0; index < found.length; index++) found.push(...childPids(found[index]!));
  return found.filter((pid) => read(`/proc/${pid}/cmdline`).includes(word));
}
