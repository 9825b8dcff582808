// `npm run bench:speed`: the hot path's goals alone (issue 64), from one run — the streaming path
// (page, door, direct, peer), the tool step, the sandbox start and the task step, each measured
// as `npm run bench` measures it, then the goals table and the tables behind it.
import os from 'node:os';
import { benchStreamingPath, streamingTable } from './streaming-path';
import { benchSandboxStart, benchToolSteps } from './tools';
import { benchTaskOverhead } from './tasks';
import { speedTable } from './speed';
import { formatMs, median, percentile } from './stats';

const quick = process.argv.includes('--quick');
console.log(`# AgentCSD speed goals — ${new Date().toISOString()}`);
console.log(`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}\n`);
const toolSteps = await benchToolSteps({ steps: 10, turns: quick ? 5 : 30, port: 3333 });
const sandbox = await benchSandboxStart({ samples: quick ? 20 : 100 });
const tasks = await benchTaskOverhead({ steps: 50, runs: quick ? 1 : 5, port: 3335 });
const streaming = await benchStreamingPath({ samples: quick ? 15 : 60, loads: [0], tokensPerReply: 40, tokensPerSecond: 200, firstDeltaDelayMs: 200, ports: { ours: 3330, peer: 3331 } });
console.log(speedTable({ streaming, toolSteps, sandbox, tasks }));
console.log('\n' + streamingTable(streaming));
const row = (label: string, samples: number[]) => `| ${label} | ${formatMs(median(samples))} | ${formatMs(percentile(samples, 90))} |`;
console.log(['', '| per step | median ms | p90 ms |', '|---|---|---|', row('tool step, ours', toolSteps.perStep.ours), row('tool step, AI SDK', toolSteps.perStep.aiSdk), row('tool step, direct', toolSteps.perStep.direct)].join('\n'));
process.exit(0);
