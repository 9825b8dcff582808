'use client';

import { pacingModes, triggerModes, type SessionParams } from '@/lib/config/model-config';
import { BUILTIN_TOOL_NAMES, GATED_TOOL_NAMES, SOMETIMES_GATED_TOOL_NAMES } from '@/lib/tools/builtin-tool-names';

export interface ParamsFormValue {
  summary_every_n: string;
  pacing: SessionParams['pacing'];
  trigger_mode: SessionParams['trigger_mode'];
  trigger_threshold: string;
  spontaneous_cap: string;
  /** Rest (issue 74): empty = the default. */
  idle_thoughts: string;
  rest_ceiling_minutes: string;
  dormant_after_days: string;
  dream_hour: string;
  dream_after: string;
  /** The conversation's time zone (IANA), or empty for the server's clock. */
  time_zone: string;
  /** "22:00-07:00", or empty for none. */
  quiet_hours: string;
  /** The built-in tools the Internal Dialog may use. */
  tools: string[];
  /** Kept as it was: which MCP servers' tools the session may use (absent: all). */
  mcp_servers?: string[];
}

export function toParamsFormValue(params: SessionParams): ParamsFormValue {
  return {
    summary_every_n: String(params.summary_every_n),
    pacing: params.pacing,
    trigger_mode: params.trigger_mode,
    trigger_threshold: String(params.trigger_threshold),
    spontaneous_cap: String(params.spontaneous_cap),
    idle_thoughts: params.idle_thoughts === undefined ? '' : String(params.idle_thoughts),
    rest_ceiling_minutes: params.rest_ceiling_minutes === undefined ? '' : String(params.rest_ceiling_minutes),
    dormant_after_days: params.dormant_after_days === undefined ? '' : String(params.dormant_after_days),
    dream_hour: params.dream_hour === undefined ? '' : String(params.dream_hour),
    dream_after: params.dream_after === undefined ? '' : String(params.dream_after),
    time_zone: params.time_zone ?? '',
    quiet_hours: params.quiet_hours ?? '',
    tools: params.tools ?? [...BUILTIN_TOOL_NAMES],
    ...(params.mcp_servers && { mcp_servers: params.mcp_servers }),
  };
}

export function toParamsPayload(value: ParamsFormValue): SessionParams {
  return {
    summary_every_n: Number(value.summary_every_n),
    pacing: value.pacing,
    trigger_mode: value.trigger_mode,
    trigger_threshold: Number(value.trigger_threshold),
    spontaneous_cap: Number(value.spontaneous_cap),
    ...(value.idle_thoughts.trim() !== '' && { idle_thoughts: Number(value.idle_thoughts) }),
    ...(value.rest_ceiling_minutes.trim() !== '' && { rest_ceiling_minutes: Number(value.rest_ceiling_minutes) }),
    ...(value.dormant_after_days.trim() !== '' && { dormant_after_days: Number(value.dormant_after_days) }),
    ...(value.dream_hour.trim() !== '' && { dream_hour: Number(value.dream_hour) }),
    ...(value.dream_after.trim() !== '' && { dream_after: Number(value.dream_after) }),
    ...(value.time_zone.trim() !== '' && { time_zone: value.time_zone.trim() }),
    ...(value.quiet_hours.trim() !== '' && { quiet_hours: value.quiet_hours.trim() }),
    tools: BUILTIN_TOOL_NAMES.filter((name) => value.tools.includes(name)),
    ...(value.mcp_servers && { mcp_servers: value.mcp_servers }),
  };
}

const pacingLabels = { adaptive: 'Adaptive (rests when idle: a couple of calls an idle day)', continuous: 'Continuous (next cycle at once: ~60,000 calls a day, idle or not)' };
const triggerLabels = { tag: 'The <trigger> tag decides', length: 'S_loud longer than a threshold' };

export function ParamsFields(props: {
  value: ParamsFormValue;
  onChange: (value: ParamsFormValue) => void;
  /** A session's capability graph: built-in tools outside it cannot be turned on. */
  graphTools?: readonly string[];
}) {
  const { value, graphTools } = props;
  const set = (patch: Partial<ParamsFormValue>) => props.onChange({ ...value, ...patch });
  return (
    <fieldset className="grid gap-3 rounded-lg border border-zinc-200 p-4 sm:grid-cols-2 dark:border-zinc-800">
      <legend className="px-1 font-semibold">Parameters</legend>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Summary every N cycles</span>
        <input className="field" type="number" min={1} value={value.summary_every_n} onChange={(event) => set({ summary_every_n: event.target.value })} />
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Pacing</span>
        <select className="field" value={value.pacing} onChange={(event) => set({ pacing: event.target.value as ParamsFormValue['pacing'] })}>
          {pacingModes.map((mode) => (
            <option key={mode} value={mode}>
              {pacingLabels[mode]}
            </option>
          ))}
        </select>
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Spontaneous speech</span>
        <select className="field" value={value.trigger_mode} onChange={(event) => set({ trigger_mode: event.target.value as ParamsFormValue['trigger_mode'] })}>
          {triggerModes.map((mode) => (
            <option key={mode} value={mode}>
              {triggerLabels[mode]}
            </option>
          ))}
        </select>
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Length threshold (characters)</span>
        <input className="field" type="number" min={1} value={value.trigger_threshold} onChange={(event) => set({ trigger_threshold: event.target.value })} />
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Spontaneous turns without a reply (cap)</span>
        <input className="field" type="number" min={0} value={value.spontaneous_cap} onChange={(event) => set({ spontaneous_cap: event.target.value })} />
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Own thoughts after something new</span>
        <input className="field" type="number" min={0} placeholder="2" value={value.idle_thoughts} onChange={(event) => set({ idle_thoughts: event.target.value })} />
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Deepest rest between them (minutes)</span>
        <input className="field" type="number" min={5} max={1440} placeholder="360" value={value.rest_ceiling_minutes} onChange={(event) => set({ rest_ceiling_minutes: event.target.value })} />
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Dormant after (days without anything new)</span>
        <input className="field" type="number" min={1} max={365} placeholder="14" value={value.dormant_after_days} onChange={(event) => set({ dormant_after_days: event.target.value })} />
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Time zone (its nights, quiet hours and “until 08:00”)</span>
        <input className="field" type="text" placeholder="the server’s clock, or e.g. Europe/Madrid" value={value.time_zone} onChange={(event) => set({ time_zone: event.target.value })} />
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Dreams at (hour of the night)</span>
        <input className="field" type="number" min={0} max={23} placeholder="3" value={value.dream_hour} onChange={(event) => set({ dream_hour: event.target.value })} />
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">…or sooner, after this much news</span>
        <input className="field" type="number" min={1} placeholder="40" value={value.dream_after} onChange={(event) => set({ dream_after: event.target.value })} />
      </label>
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Quiet hours (what it would say on its own waits)</span>
        <input className="field" type="text" placeholder="22:00-07:00" pattern="\d{1,2}:\d{2}-\d{1,2}:\d{2}" value={value.quiet_hours} onChange={(event) => set({ quiet_hours: event.target.value })} />
      </label>
      <fieldset className="sm:col-span-2">
        <legend className="mb-1 text-sm font-medium">Tools the Internal Dialog may use</legend>
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {BUILTIN_TOOL_NAMES.map((name) => (
            <label key={name} className="flex items-center gap-1.5 text-sm">
              <input
                type="checkbox"
                disabled={graphTools !== undefined && !graphTools.includes(name)}
                title={graphTools !== undefined && !graphTools.includes(name) ? "Not in this session's capability graph" : undefined}
                checked={value.tools.includes(name)}
                onChange={(event) => set({ tools: event.target.checked ? [...value.tools, name] : value.tools.filter((tool) => tool !== name) })}
              />
              <span className="font-mono">{name}</span>
              {GATED_TOOL_NAMES.includes(name) && <span className="text-xs text-zinc-500">(asks you first)</span>}
              {SOMETIMES_GATED_TOOL_NAMES.includes(name) && <span className="text-xs text-zinc-500">(asks for recurring ones)</span>}
            </label>
          ))}
        </div>
        <p className="mt-1 text-xs text-zinc-500">On every backend: the Anthropic API and OpenAI-compatible servers call them natively, the Claude Code CLI through the app's own MCP endpoint.</p>
      </fieldset>
    </fieldset>
  );
}
