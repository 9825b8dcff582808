// The hot path's goals (issue 64), one table from one run: each figure beside its goal and beside
// the peer it is measured against. The figures come from the benchmarks that measure them in full
// (streaming-path, tools, tasks); this only reads them side by side. `npm run bench:speed` runs
// just these; `npm run bench` prints the same table from its own full run.
import type { StreamingResult } from './streaming-path';
import type { TaskOverheadResult } from './tasks';
import { formatMs, median } from './stats';

export interface SpeedInput {
  streaming: StreamingResult;
  toolSteps: { perStep: Record<'ours' | 'direct' | 'aiSdk', number[]> };
  sandbox: { sandboxed: number[]; bare: number[] };
  tasks: TaskOverheadResult;
}

const mark = (met: boolean) => (met ? 'met' : '**missed**');

export function speedTable(input: SpeedInput): string {
  const { byPath } = input.streaming;
  const page = median(byPath['ours-socket'].firstTokenMs);
  const direct = median(byPath.direct.firstTokenMs);
  const peer = median(byPath.peer.firstTokenMs);
  const door = median(byPath['ours-door'].firstTokenMs);
  const steps = input.toolSteps.perStep;
  const step = { ours: median(steps.ours), aiSdk: median(steps.aiSdk), direct: median(steps.direct) };
  const bare = median(input.sandbox.bare);
  const sandboxed = median(input.sandbox.sandboxed);
  const taskAdded = median(input.tasks.ours.map((total, index) => (total - input.tasks.direct[index]!) / input.tasks.steps));
  const taskOurs = median(input.tasks.ours) / input.tasks.steps;
  const taskDirect = median(input.tasks.direct) / input.tasks.steps;
  const rows: [string, string, string, boolean][] = [
    ['first reply token vs a direct SDK call', `${(page / direct).toFixed(3)}× (${formatMs(page)} vs ${formatMs(direct)} ms, +${formatMs(page - direct)})`, '≤ 1.02×', page / direct <= 1.02],
    ['first reply token vs the AI SDK peer', `${(page / peer).toFixed(3)}× (peer ${formatMs(peer)} ms)`, '≤ 0.97×', page / peer <= 0.97],
    ['tool step vs the AI SDK\'s tool loop', `${(step.ours / step.aiSdk).toFixed(3)}× (${formatMs(step.ours)} vs ${formatMs(step.aiSdk)} ms; direct ${formatMs(step.direct)})`, '≤ 1.0×', step.ours <= step.aiSdk],
    [
      'sandbox start added to `bash -c true`',
      `+${formatMs(sandboxed - bare)} ms (${formatMs(bare)} → ${formatMs(sandboxed)}, ${(sandboxed / bare).toFixed(2)}×)`,
      '≤ +10 ms or ≤ 1.3× bare',
      sandboxed - bare <= 10 || sandboxed / bare <= 1.3,
    ],
    ['task step over the same steps with the openai SDK', `+${formatMs(taskAdded)} ms (${formatMs(taskOurs)} vs ${formatMs(taskDirect)} ms)`, '≤ +4 ms', taskAdded <= 4],
    ['the OpenAI door\'s first token vs the page\'s path', `+${formatMs(door - page)} ms (${formatMs(door)} vs ${formatMs(page)} ms)`, '≤ +5 ms', door - page <= 5],
  ];
  return ['| path | measured (medians, one run) | goal | |', '|---|---|---|---|', ...rows.map(([what, measured, goal, met]) => `| ${what} | ${measured} | ${goal} | ${mark(met)} |`)].join('\n');
}
