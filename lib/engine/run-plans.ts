// What Settings › Cluster says of an unfinished run stamped with another version than this
// process's (issue 60): where it runs now, or what waits and what will happen to it. A run that a
// live member of its version is running is said to run there (issue 73 §7: it was shown as
// "waiting while a process of version … runs", beside the process running it).

export interface RunOfAnotherVersion {
  version: string;
  /** The DBOS executor holding it: a member's name, or `parked:<name>` for one a launch parked. */
  executor: string;
}

export function runPlan(run: RunOfAnotherVersion, members: readonly { name: string; version: string | null }[], current: string, sweepSeconds: number): string {
  if (members.some((member) => member.name === run.executor && member.version === run.version)) {
    return `runs on ${run.executor} (version ${run.version}) and finishes there; if that process stops first, it continues on version ${current} from its last finished step`;
  }
  if (members.some((member) => member.version === run.version)) {
    return `waits while a process of version ${run.version} runs (one that holds its session continues it); continues on version ${current} once none does`;
  }
  return `continues on version ${current} from its last finished step, in the process that holds its session (within ${sweepSeconds} s)`;
}
