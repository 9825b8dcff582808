// What tracing costs (issue 65): the tool step and the page's first token with tracing off (the
// facade's one call per span) and on (spans made, batched and sent over OTLP/protobuf to a
// receiver on loopback), measured one after the other in one run. "Off" is today's hot path, so
// the goals table's own figures (bench/speed.ts) are the "before" to compare it with.
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
    const offSteps = await benchToolSteps({ steps: 10, turns: options.turns, port: 3392 });
    const offStream = await streaming();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url; // the spawned server inherits it too
    await startTracing();
    const onSteps = await benchToolSteps({ steps: 10, turns: options.turns, port: 3393 });
    const onStream = await streaming();
    await stopTracing();
    return {
      toolStep: { off: median(offSteps.perStep.ours), on: median(onSteps.perStep.ours) },
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
