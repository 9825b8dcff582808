'use client';

// The Capabilities page's editor: a persona's agent graph in React Flow. Connections are checked
// by the same rule table as the server (rules.ts) while they are drawn; the whole graph by the
// same validator (validate.ts) on every change, its errors marked on their nodes; Save is refused
// while any remains. Import and export use the seed's JSON shape.
import '@xyflow/react/dist/style.css';
import { Background, Controls, Handle, Position, ReactFlow, type Connection, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { capabilitiesOf } from '@/lib/capabilities/capability-set';
import { isNodeType, kindOf, NODE_LABELS, NODE_TYPES, type NodeType } from '@/lib/capabilities/node-types';
import { canConnect } from '@/lib/capabilities/rules';
import { validateGraph, type AgentGraph, type GraphError, type GraphNode } from '@/lib/capabilities/validate';
import { errorText } from '@/lib/errors/error-text';

type CardData = { node: GraphNode; errors: GraphError[]; selected: boolean };

/** Errors that belong to a node: its own path, or an edge's whose message names it. */
function errorsOf(node: GraphNode, errors: readonly GraphError[]): GraphError[] {
  return errors.filter((error) => error.path === `nodes[${node.id}]` || error.path.startsWith(`nodes[${node.id}].`));
}

function NodeCard({ data }: NodeProps<Node<CardData>>) {
  const { node, errors } = data;
  const type = isNodeType(node.type) ? node.type : null;
  const kind = type ? kindOf(type) : 'capability';
  return (
    <div
      data-testid={`node-${node.id}`}
      aria-label={`${node.id} (${node.type})${errors.length ? `: ${errors.map((error) => error.code).join(', ')}` : ''}`}
      className={`min-w-36 rounded-md border-2 bg-white px-3 py-2 text-xs shadow-sm dark:bg-zinc-900 ${
        errors.length ? 'border-red-500' : kind === 'core' ? 'border-indigo-500' : data.selected ? 'border-zinc-700' : 'border-zinc-300 dark:border-zinc-700'
      }`}
    >
      {kind !== 'trigger' && <Handle type="target" position={Position.Top} />}
      <p className="font-semibold">{type ? NODE_LABELS[type].label : node.type}</p>
      <p className="font-mono text-zinc-500">{node.id}</p>
      {errors.map((error) => (
        <p key={error.code + error.path} className="mt-1 font-mono text-[10px] text-red-600" role="note">
          {error.code}
        </p>
      ))}
      {kind !== 'capability' && <Handle type="source" position={Position.Bottom} />}
      {kind === 'capability' && <Handle type="source" position={Position.Bottom} className="!bg-zinc-300" />}
    </div>
  );
}

const nodeTypes = { card: NodeCard };

function nextId(graph: AgentGraph, type: NodeType): string {
  const stem = type.split('.')[1]!.replace(/[^a-z]/g, '');
  for (let index = 1; ; index++) if (!graph.nodes.some((node) => node.id === `${stem}${index}`)) return `${stem}${index}`;
}

export function GraphEditor({ persona }: { persona: string }) {
  const [graph, setGraph] = useState<AgentGraph | null>(null);
  const [stored, setStored] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const lastRefusal = useRef<string | null>(null);
  const url = `/api/personas/${encodeURIComponent(persona)}/capabilities`;

  useEffect(() => {
    apiFetch<{ graph: AgentGraph; stored: boolean }>(url).then(
      (answer) => {
        setGraph(answer.graph);
        setStored(answer.stored);
      },
      (caught: Error) => setError(caught.message),
    );
  }, [url]);

  const validation = useMemo(() => (graph ? validateGraph(graph) : null), [graph]);
  const errors = validation?.errors ?? [];
  const typeOf = useCallback((id: string): NodeType | null => {
    const type = graph?.nodes.find((node) => node.id === id)?.type;
    return type && isNodeType(type) ? type : null;
  }, [graph]);

  /** The rule table's verdict on a connection, with the reason when refused. */
  const verdict = useCallback(
    (source: string, target: string): string | null => {
      if (source === target) return `${source} cannot connect to itself`;
      const sourceType = typeOf(source);
      const targetType = typeOf(target);
      if (!sourceType || !targetType) return 'both ends must be known nodes';
      const rule = canConnect(sourceType, targetType);
      if (!rule.ok) return `${source} → ${target} refused: ${rule.reason}`;
      if (graph?.edges.some((edge) => edge.source === source && edge.target === target)) return `${source} → ${target} is already connected`;
      return null;
    },
    [graph, typeOf],
  );

  const connect = useCallback(
    (source: string, target: string) => {
      const reason = verdict(source, target);
      setRefusal(reason);
      if (reason || !graph) return;
      let index = graph.edges.length + 1;
      while (graph.edges.some((edge) => edge.id === `e${index}`)) index++;
      setGraph({ ...graph, edges: [...graph.edges, { id: `e${index}`, source, target }] });
      setNotice(null);
    },
    [graph, verdict],
  );

  if (!graph) return <div>{error ? <ErrorBanner message={error} /> : <p aria-busy="true">Loading…</p>}</div>;

  const flowNodes: Node<CardData>[] = graph.nodes.map((node, index) => ({
    id: node.id,
    type: 'card',
    position: node.position ?? { x: 80 + (index % 5) * 180, y: 80 + Math.floor(index / 5) * 140 },
    data: { node, errors: errorsOf(node, errors), selected: node.id === selected },
  }));
  const flowEdges: Edge[] = graph.edges.map((edge) => ({ id: edge.id, source: edge.source, target: edge.target, animated: false }));
  const current = graph.nodes.find((node) => node.id === selected) ?? null;
  const capabilities = validation?.ok ? capabilitiesOf(validation.graph) : null;

  function update(next: AgentGraph) {
    setGraph(next);
    setNotice(null);
  }

  async function save() {
    if (!graph) return;
    try {
      const answer = await apiFetch<{ graph: AgentGraph }>(url, { method: 'PUT', body: { graph } });
      setGraph(answer.graph);
      setStored(true);
      setNotice('Saved. Sessions created from now on use this graph.');
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  function exportJson() {
    const blob = new Blob([JSON.stringify(graph, null, 2)], { type: 'application/json' });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = `${persona}-capabilities.json`;
    link.click();
    URL.revokeObjectURL(link.href);
  }

  async function importJson(file: File) {
    try {
      const parsed = JSON.parse(await file.text()) as unknown;
      const checked = validateGraph(parsed);
      if (!checked.graph) throw new Error(`Not an agent graph: ${checked.errors.map((each) => `${each.code} at ${each.path}: ${each.message}`).join('; ')}`);
      update(checked.graph);
      setNotice(`Imported ${file.name}${checked.ok ? '' : ` with ${checked.errors.length} error(s) to fix before saving`}.`);
      setError(null);
    } catch (caught) {
      setError(`Could not import ${file.name}: ${errorText(caught)}`);
    }
  }

  return (
    <div className="space-y-3">
      <ErrorBanner message={error} />
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className="btn btn-primary" onClick={() => void save()} disabled={!validation?.ok}>
          Save
        </button>
        <button type="button" className="btn" onClick={exportJson}>
          Export JSON
        </button>
        <label className="btn cursor-pointer">
          Import JSON
          <input type="file" accept="application/json,.json" className="sr-only" onChange={(event) => event.target.files?.[0] && void importJson(event.target.files[0])} />
        </label>
        <span className="text-sm text-zinc-500">{stored ? 'Saved graph' : 'Default graph (not saved yet): everything a session could use before graphs'}</span>
        {notice && (
          <span role="status" className="text-sm text-green-700 dark:text-green-400">
            {notice}
          </span>
        )}
      </div>
      <div className="grid gap-3 lg:grid-cols-[1fr_20rem]">
        <div className="h-[560px] rounded-lg border border-zinc-200 dark:border-zinc-800" aria-label="Agent graph">
          <ReactFlow
            nodes={flowNodes}
            edges={flowEdges}
            nodeTypes={nodeTypes}
            fitView
            onNodeClick={(_event, node) => setSelected(node.id)}
            onNodeDragStop={(_event, node) => update({ ...graph, nodes: graph.nodes.map((each) => (each.id === node.id ? { ...each, position: { x: Math.round(node.position.x), y: Math.round(node.position.y) } } : each)) })}
            isValidConnection={(connection) => {
              const reason = verdict(connection.source, connection.target);
              lastRefusal.current = reason;
              return reason === null;
            }}
            onConnect={(connection: Connection) => connect(connection.source, connection.target)}
            onConnectEnd={() => {
              if (lastRefusal.current) setRefusal(lastRefusal.current);
              lastRefusal.current = null;
            }}
            onEdgesDelete={(deleted) => update({ ...graph, edges: graph.edges.filter((edge) => !deleted.some((each) => each.id === edge.id)) })}
            onNodesDelete={(deleted) => {
              const ids = new Set(deleted.map((node) => node.id));
              update({ ...graph, nodes: graph.nodes.filter((node) => !ids.has(node.id)), edges: graph.edges.filter((edge) => !ids.has(edge.source) && !ids.has(edge.target)) });
            }}
          >
            <Background />
            <Controls />
          </ReactFlow>
        </div>
        <aside className="space-y-4 text-sm">
          <section aria-labelledby="palette-heading">
            <h2 id="palette-heading" className="font-semibold">
              Add a node
            </h2>
            <div className="mt-1 flex flex-wrap gap-1">
              {NODE_TYPES.map((type) => (
                <button
                  key={type}
                  type="button"
                  className="btn py-0.5 text-xs"
                  title={NODE_LABELS[type].help}
                  onClick={() => {
                    const id = nextId(graph, type);
                    // Below everything, so a new node never lands on another.
                    const lowest = Math.max(0, ...graph.nodes.map((node) => node.position?.y ?? 0));
                    update({ ...graph, nodes: [...graph.nodes, { id, type, config: type === 'tool.mcp' ? { server: '' } : type === 'skill' ? { name: '' } : type === 'agent.delegate' ? { persona: '' } : {}, position: { x: 400, y: lowest + 140 } }] });
                    setSelected(id);
                  }}
                >
                  + {NODE_LABELS[type].label}
                </button>
              ))}
            </div>
          </section>
          <section aria-labelledby="connect-heading">
            <h2 id="connect-heading" className="font-semibold">
              Connect
            </h2>
            <p className="text-xs text-zinc-500">Drag from a node&apos;s lower handle to another&apos;s upper handle, or choose here.</p>
            <div className="mt-1 flex flex-wrap items-end gap-1">
              <NodeSelect label="From" graph={graph} value={from} onChange={setFrom} />
              <NodeSelect label="To" graph={graph} value={to} onChange={setTo} />
              <button type="button" className="btn py-0.5 text-xs" disabled={!from || !to} onClick={() => connect(from, to)}>
                Connect
              </button>
            </div>
            {refusal && (
              <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
                {refusal}
              </p>
            )}
          </section>
          {current && <NodeForm key={current.id} node={current} graph={graph} onChange={update} onClose={() => setSelected(null)} />}
          <section aria-labelledby="validation-heading">
            <h2 id="validation-heading" className="font-semibold">
              {errors.length === 0 ? 'Valid' : `${errors.length} error${errors.length === 1 ? '' : 's'} — fix before saving`}
            </h2>
            <ul aria-label="Graph errors" className="mt-1 space-y-1 text-xs">
              {errors.map((each) => (
                <li key={`${each.code}${each.path}${each.message}`}>
                  <span className="font-mono text-red-700 dark:text-red-400">{each.code}</span> <span className="font-mono text-zinc-500">{each.path}</span> — {each.message}
                </li>
              ))}
            </ul>
            {capabilities && (
              <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400" data-testid="capability-summary">
                The agent may use: {[...capabilities.builtinTools, ...capabilities.mcpServers.map((server) => `MCP ${server}`), ...capabilities.skills.map((skill) => `skill ${skill}`), ...capabilities.specialists.map((persona) => `specialist ${persona}`), ...(capabilities.http ? ['http'] : []), ...(capabilities.chat ? ['chat'] : []), ...(capabilities.end ? ['end'] : [])].join(', ') || 'nothing but its model'}.
              </p>
            )}
          </section>
        </aside>
      </div>
    </div>
  );
}

function NodeSelect({ label, graph, value, onChange }: { label: string; graph: AgentGraph; value: string; onChange: (id: string) => void }) {
  return (
    <label className="flex flex-col text-xs">
      {label}
      <select className="field" value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">—</option>
        {graph.nodes.map((node) => (
          <option key={node.id} value={node.id}>
            {node.id}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The selected node: its config as JSON (checked live by the validator), its edges, and delete. */
function NodeForm({ node, graph, onChange, onClose }: { node: GraphNode; graph: AgentGraph; onChange: (graph: AgentGraph) => void; onClose: () => void }) {
  const [text, setText] = useState(JSON.stringify(node.config ?? {}, null, 2));
  const [parseError, setParseError] = useState<string | null>(null);
  const edges = graph.edges.filter((edge) => edge.source === node.id || edge.target === node.id);
  const type = isNodeType(node.type) ? node.type : null;
  return (
    <section aria-label={`Node ${node.id}`} className="rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
      <h2 className="font-semibold">
        {node.id} <span className="font-normal text-zinc-500">({node.type})</span>
      </h2>
      {type && <p className="text-xs text-zinc-500">{NODE_LABELS[type].help}</p>}
      <label className="mt-1 flex flex-col text-xs">
        Config (JSON)
        <textarea
          className="field font-mono"
          rows={5}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            try {
              const config = JSON.parse(event.target.value) as unknown;
              if (config === null || typeof config !== 'object' || Array.isArray(config)) throw new Error('the config is a JSON object');
              setParseError(null);
              onChange({ ...graph, nodes: graph.nodes.map((each) => (each.id === node.id ? { ...each, config: config as Record<string, unknown> } : each)) });
            } catch (caught) {
              setParseError(errorText(caught));
            }
          }}
        />
      </label>
      {parseError && <p className="text-xs text-red-700">{parseError}</p>}
      <ul className="mt-1 text-xs" aria-label={`Connections of ${node.id}`}>
        {edges.map((edge) => (
          <li key={edge.id} className="flex items-center gap-2">
            {edge.source} → {edge.target}
            <button type="button" className="btn ml-auto py-0 text-[11px]" onClick={() => onChange({ ...graph, edges: graph.edges.filter((each) => each.id !== edge.id) })}>
              Disconnect
            </button>
          </li>
        ))}
      </ul>
      <div className="mt-2 flex gap-2">
        <button
          type="button"
          className="btn btn-danger py-0.5 text-xs"
          onClick={() => {
            onChange({ ...graph, nodes: graph.nodes.filter((each) => each.id !== node.id), edges: graph.edges.filter((edge) => edge.source !== node.id && edge.target !== node.id) });
            onClose();
          }}
        >
          Delete node
        </button>
        <button type="button" className="btn py-0.5 text-xs" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
