// The fake model as seed 001's crew (issue 34), read from the `<task>` part of a step's prompt:
// the lead (the general assistant's first task, "release note") notes what matters, plans,
// delegates the review and finishes with the reviewer's verdict; the reviewer answers from the
// team's notes. A lead's goal with [[research]] asks the researcher, whose python call waits on a
// card (decided from the lead's chat in the e2e run). A goal with [[slow-review]] makes the reviewer work through several steps (a
// `recall` each) before its verdict, for the tests that kill a process during a child's step.
import type { FakeReply, FakeRequest } from './fake-server-core';
import { mindScript, tagContent, toolResults } from './mind-script';
import { rounds, taskPrompt } from './task-script';

export const LEAD_NOTE = 'The audience is existing users: five lines, no marketing words.';

/** Whose task step a request is (the lead's, the reviewer's), which step and which round of it. */
export function crewStepOf(request: FakeRequest): { who: 'lead' | 'reviewer'; step: number; round: number; task: string } | null {
  const task = taskPrompt(request);
  if (task === null) return null;
  return { who: task.startsWith('Goal: Review') ? 'reviewer' : 'lead', step: Number(/step (\d+) of at most/.exec(task)?.[1] ?? '0'), round: rounds(request.body), task };
}

export function crewScript(request: FakeRequest): FakeReply {
  const at = crewStepOf(request);
  if (at === null) return mindScript(request);
  const { task, round, step } = at;
  const results = toolResults(request.body) ?? [];
  const said = (text: string): FakeReply => ({ text: `<ID_loud>${text}</ID_loud>` });
  const slow = task.includes('[[slow-review]]');

  if (task.startsWith('Goal: Research')) {
    // The researcher computes in the sandbox: a card the person decides on (shown in the lead's chat too).
    if (round === 0) return { text: '<ID_loud>Computing.</ID_loud>', toolCalls: [{ name: 'python', input: { code: 'print(6 * 7)', explanation: 'Compute the answer' } }] };
    const printed = results[0]?.trim() ?? '';
    if (round === 1) return { text: '<ID_loud>Found it.</ID_loud>', toolCalls: [{ name: 'finish_task', input: { result: printed.includes('42') ? 'The answer is 42 (computed in python).' : `Could not compute it: ${printed.slice(0, 200)}` } }] };
    return said('Reported.');
  }
  if (task.includes('[[research]]')) {
    const found = results.find((result) => result.startsWith('researcher finished'));
    if (found) return { text: '<ID_loud>Done.</ID_loud>', toolCalls: [{ name: 'finish_task', input: { result: found.split('\n').slice(1).join(' ') } }] };
    if (round === 0) return { text: '<ID_loud>Asking the researcher.</ID_loud>', toolCalls: [{ name: 'delegate', input: { specialist: 'researcher', task: 'Research: what is six times seven?' } }] };
    return said(`No answer: ${results.join(' ').slice(0, 300)}`);
  }
  if (task.startsWith('Goal: Review')) {
    if (slow && step < 4) return round === 0 ? { text: `<ID_loud>Reading, step ${step}.</ID_loud>`, toolCalls: [{ name: 'recall', input: { query: `release note part ${step}` } }] } : said(`Read part ${step}.`);
    if (round > 0) return said('Verdict given.');
    const notes = tagContent(task, 'team_notes');
    const heard = notes?.includes(LEAD_NOTE) ? 'as the lead noted, five lines for existing users' : 'no notes from the lead';
    return { text: '<ID_loud>Reviewed.</ID_loud>', toolCalls: [{ name: 'finish_task', input: { result: `Ship after one fix: cut "blazing" (${heard}).` } }] };
  }
  if (task.includes('release note')) {
    if (round === 0) {
      return {
        text: '<ID_loud>Planning the note.</ID_loud>',
        toolCalls: [
          { name: 'note', input: { note: LEAD_NOTE } },
          { name: 'update_plan', input: { steps: [{ title: 'Draft the note', status: 'done' }, { title: 'Have it reviewed', status: 'in_progress' }] } },
        ],
      };
    }
    const review = results.find((result) => result.startsWith('reviewer finished'));
    if (review) return { text: '<ID_loud>Done.</ID_loud>', toolCalls: [{ name: 'finish_task', input: { result: `v1.2: faster start, --json, two fixes. ${review.split('\n').slice(1).join(' ')}` } }] };
    if (results.some((result) => result.startsWith('reviewer did not finish') || result.startsWith('Not delegated'))) return said(`No review: ${results.join(' ')}`);
    if (round === 1) {
      return { text: '<ID_loud>Asking the reviewer.</ID_loud>', toolCalls: [{ name: 'delegate', input: { specialist: 'reviewer', task: `Review the draft release note "v1.2 is blazing fast"${slow ? ' [[slow-review]]' : ''}` } }] };
    }
    return said('Waiting on the review.');
  }
  return said('No flow for this goal.');
}
