// Capabilities, measured (issue 18): validating a 1,000-node agent graph — valid (core, a model and
// 998 MCP servers, all connected) and broken (the same with nothing connected: 999 errors) — and
// reading its capabilities. Median of repeated runs in one process.
import { capabilitiesOf } from '@/lib/capabilities/capability-set';
import { validateGraph, type AgentGraph } from '@/lib/capabilities/validate';
import { formatMs, median } from './stats';

function bigGraph(size: number, connected: boolean): AgentGraph {
  const nodes: AgentGraph['nodes'] = [
    { id: 'core', type: 'agent.core', config: {} },
    { id: 'model', type: 'model.llm', config: { role: 'c_model' } },
    ...Array.from({ length: size - 2 }, (_, index) => ({ id: `mcp${index}`, type: 'tool.mcp', config: { server: `server${index}` } })),
  ];
  const edges = connected ? nodes.slice(1).map((node) => ({ id: `e_${node.id}`, source: 'core', target: node.id })) : [];
  return { id: 'big', version: 1, nodes, edges };
}

export interface ValidationTiming {
  label: string;
  errors: number;
  samples: number[];
}

export function benchGraphValidation(options: { size: number; runs: number }): ValidationTiming[] {
  const cases: [string, AgentGraph][] = [
    [`${options.size} nodes, valid`, bigGraph(options.size, true)],
    [`${options.size} nodes, nothing connected`, bigGraph(options.size, false)],
  ];
  return cases.map(([label, graph]) => {
    const samples: number[] = [];
    let errors = 0;
    for (let run = 0; run < options.runs; run++) {
      const started = performance.now();
      const checked = validateGraph(graph);
      if (checked.ok) capabilitiesOf(checked.graph);
      samples.push(performance.now() - started);
      errors = checked.errors.length;
    }
    return { label, errors, samples };
  });
}

export function capabilitiesTable(timings: ValidationTiming[]): string {
  return [
    '| graph | errors | validate (+ capabilities) median ms |',
    '|---|---|---|',
    ...timings.map((timing) => `| ${timing.label} | ${timing.errors} | ${formatMs(median(timing.samples))} |`),
  ].join('\n');
}
