// The fake model working on a task (lib/tasks): it reads the `<task>` part of the prompt (which
// step, the notes) and follows the flow its goal names — seed 002's scenarios, step by step.
//   [[approve]]  step 1: plan + write a file; step 2: a command that needs approval (denied →
//                the plan changes); step 3: finish with what it found.
//   [[ask]]      step 1: ask_user; step 2: finish with the answer from the notes.
//   [[full]]     plan, write, a command to approve, a question, then finish with the answer.
//   [[forever]]  never finishes: one grep per step (a new pattern each time); with [[slow]] each
//                step's first call answers 1.5 s late (a stop lands while the model is asked).
//   [[repeat]]   the same call with the same result every step.
import type { FakeReply, FakeRequest } from './fake-server-core';
import { mindScript, tagContent, toolResults } from './mind-script';

/** The step's own prompt: the first user message (later ones carry tool results on Anthropic). */
function firstUserText(body: unknown): string {
  const first = ((body as { messages?: { role: string; content: unknown }[] }).messages ?? []).find((message) => message.role === 'user');
  if (!first) return '';
  if (typeof first.content === 'string') return first.content;
  return (first.content as { type?: string; text?: string }[]).map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
}

/** The assistant turns so far in this request: which round of the step's tool loop it is. */
export function rounds(body: unknown): number {
  const messages = (body as { messages?: { role: string }[] }).messages ?? [];
  return messages.filter((message) => message.role === 'assistant').length;
}

/** The `<task>` part of a task step's prompt; null for any other request (the Subconscious, a chat turn). */
export function taskPrompt(request: FakeRequest): string | null {
  return request.system.includes('You are the Subconscious') ? null : tagContent(firstUserText(request.body), 'task');
}

export function taskScript(request: FakeRequest): FakeReply {
  const task = taskPrompt(request);
  if (task === null) return mindScript(request);
  const step = Number(/step (\d+) of at most/.exec(task)?.[1] ?? '0');
  const round = rounds(request.body);
  const results = toolResults(request.body) ?? [];
  const said = (text: string): FakeReply => ({ text: `<ID_loud>${text}</ID_loud><ID_quiet>step ${step}, round ${round}</ID_quiet>` });

  if (task.includes('[[approve]]')) {
    if (step === 1 && round === 0) {
      return {
        text: '<ID_loud>Planning, then writing the notes.</ID_loud>',
        toolCalls: [
          { name: 'update_plan', input: { steps: [{ title: 'Write notes', status: 'in_progress' }, { title: 'Show them', status: 'pending' }] } },
          { name: 'write_file', input: { path: 'notes.txt', content: 'task notes\n' } },
        ],
      };
    }
    if (step === 1) return said('Wrote notes.txt.');
    if (step === 2 && round === 0) {
      return { text: '<ID_loud>Showing the notes.</ID_loud>', toolCalls: [{ name: 'bash', input: { command: 'cat notes.txt', explanation: 'Show the notes' } }] };
    }
    if (step === 2 && round === 1 && results.some((result) => result.includes('Denied by the user'))) {
      return {
        text: '<ID_loud>Not allowed to run it; I will report from what I wrote.</ID_loud>',
        toolCalls: [{ name: 'update_plan', input: { steps: [{ title: 'Write notes', status: 'done' }, { title: 'Report without running commands', status: 'in_progress' }] } }],
      };
    }
    if (step === 2 && round === 1) {
      return { text: '<ID_loud>The notes say what I wrote.</ID_loud>', toolCalls: [{ name: 'update_plan', input: { steps: [{ title: 'Write notes', status: 'done' }, { title: 'Show them', status: 'done' }] } }] };
    }
    if (step === 2) return said('Reflected on it.');
    return { text: '<ID_loud>Done.</ID_loud>', toolCalls: [{ name: 'finish_task', input: { result: task.includes('Report without running commands') ? 'notes.txt written; not shown (command denied)' : `notes.txt holds: task notes` } }] };
  }
  if (task.includes('[[full]]')) {
    const plan = (statuses: string[]) => ({
      name: 'update_plan',
      input: { steps: ['Write notes', 'Show them', 'Ask for a title'].map((title, index) => ({ title, status: statuses[index] })) },
    });
    const answer = /the user answered: (.*)/.exec(task)?.[1];
    if (answer) return round === 0 ? { text: '<ID_loud>Finishing.</ID_loud>', toolCalls: [plan(['done', 'done', 'done']), { name: 'finish_task', input: { result: `Notes titled "${answer}"` } }] } : said('Done.');
    if (step === 1 && round === 0) return { text: '<ID_loud>Planning, then writing the notes.</ID_loud>', toolCalls: [plan(['in_progress', 'pending', 'pending']), { name: 'write_file', input: { path: 'notes.txt', content: 'task notes\n' } }] };
    if (step === 1) return said('Wrote notes.txt.');
    if (step === 2 && round === 0) return { text: '<ID_loud>Showing the notes.</ID_loud>', toolCalls: [plan(['done', 'in_progress', 'pending']), { name: 'bash', input: { command: 'cat notes.txt', explanation: 'Show the notes' } }] };
    if (step === 2) return said('The notes are there.');
    if (round === 0) return { text: '<ID_loud>One question.</ID_loud>', toolCalls: [plan(['done', 'done', 'in_progress']), { name: 'ask_user', input: { question: 'What title should the notes get?' } }] };
    return said('Waiting for your answer.');
  }
  if (task.includes('[[ask]]')) {
    const answer = /the user answered: (.*)/.exec(task)?.[1];
    if (!answer && round === 0) return { text: '<ID_loud>One question first.</ID_loud>', toolCalls: [{ name: 'ask_user', input: { question: 'Which colour?' } }] };
    if (!answer) return said('Waiting for your answer.');
    if (round === 0) return { text: '<ID_loud>Thanks.</ID_loud>', toolCalls: [{ name: 'finish_task', input: { result: `Colour chosen: ${answer}` } }] };
    return said('Finished.');
  }
  if (task.includes('[[forever]]')) {
    if (round === 0) return { text: `<ID_loud>Step ${step}: looking around.</ID_loud>`, toolCalls: [{ name: 'grep', input: { pattern: `step-${step}` } }], ...(task.includes('[[slow]]') && { holdMs: 1_500 }) };
    return said(`Step ${step} done; more to do.`);
  }
  if (task.includes('[[repeat]]')) {
    if (round === 0) return { text: '', toolCalls: [{ name: 'list_files', input: { path: '.' } }] };
    return said('Same again.');
  }
  return said('No flow for this goal.');
}
