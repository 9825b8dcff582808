// What tracing costs (issue 65): the tool step and the page's first token with tracing off (the
// facade's one call per span) and on (spans made, batched and sent over OTLP/protobuf to a
// receiver on loopback), in one run — the tool step in alternating rounds, the first token off
// then on. "Off" is today's hot path, so the goals table's own figures (bench/speed.ts) are the
// "before" to compare it with.
import { startTracing, stopTracing } from '@/lib/telemetry/traces';
import { startOtlpReceiver } from '@/test/fakes/otlp-receiver';
import { benchStreamingPath } from './streaming-path';
import { benchToolSteps } from './tools';
import { formatMs, median } from './stats';

export interface TracingCost {
  toolStep: { off: number; on: number };
  firstToken: { off: number; on: number };
  spansReceived: number;
}

export async function benchTracingCost(options: { turns: number; samples: number }): Promise<TracingCost> {
  const receiver = await startOtlpReceiver();
  const streaming = () => benchStreamingPath({ samples: options.samples, loads: [0], tokensPerReply: 40, tokensPerSecond: 200, firstDeltaDelayMs: 200, ports: { ours: 3390, peer: 3391 } });
  try {
    // A first round warms the code every measured run goes through (JIT, the fake server, the
    // store). Then the tool step alternates off and on, four rounds each, so a machine that is
    // busier for a minute weighs on both sides alike.
    await benchToolSteps({ steps: 10, turns: Math.max(3, Math.ceil(options.turns / 4)), port: 3394 });
    const steps = { off: [] as number[], on: [] as number[] };
    for (let round = 0; round < 4; round++) {
      for (const side of ['off', 'on'] as const) {
        if (side === 'on') {
          process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
          await startTracing();
        }
        steps[side].push(...(await benchToolSteps({ steps: 10, turns: Math.max(2, Math.ceil(options.turns / 4)), port: 3395 + round * 2 + (side === 'on' ? 1 : 0) })).perStep.ours);
        if (side === 'on') {
          await stopTracing();
          delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
        }
      }
    }
    const offStream = await streaming();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url; // the spawned server inherits it too
    await startTracing();
    const onStream = await streaming();
    await stopTracing();
    return {
      toolStep: { off: median(steps.off), on: median(steps.on) },
      firstToken: { off: median(offStream.byPath['ours-socket'].firstTokenMs), on: median(onStream.byPath['ours-socket'].firstTokenMs) },
      spansReceived: receiver.spans.length,
    };
  } finally {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await receiver.close();
  }
}

export function tracingTable(cost: TracingCost): string {
  const row = (what: string, pair: { off: number; on: number }) => `| ${what} | ${formatMs(pair.off)} | ${formatMs(pair.on)} | ${formatMs(pair.on - pair.off)} (${(pair.on / pair.off).toFixed(3)}×) |`;
  return [
    '| path | tracing off, median ms | on (OTLP/protobuf to loopback), median ms | added |',
    '|---|---|---|---|',
    row('tool step (10-step turns)', cost.toolStep),
    row("first reply token, the page's path", cost.firstToken),
    '',
    `Spans received while on: ${cost.spansReceived}.`,
  ].join('\n');
}
