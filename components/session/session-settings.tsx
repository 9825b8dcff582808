'use client';

import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { LayerWithFallbacks } from '@/components/settings/fallback-fields';
import { toLayerFormValue, toLayerPayload } from '@/components/settings/layer-form-value';
import { ParamsFields, toParamsFormValue, toParamsPayload } from '@/components/settings/params-fields';
import { ErrorBanner } from '@/components/ui/error-banner';
import { useSave } from '@/components/ui/use-save';
import type { SessionJson } from '@/lib/http/session-json';

/** This session's own parameters and per-layer models (the defaults live in Settings). */
export function SessionSettings(props: { session: SessionJson; onSaved: (session: SessionJson) => void }) {
  const [form, setForm] = useState(() => ({
    c_model: toLayerFormValue(props.session.models.c_model),
    s_model: toLayerFormValue(props.session.models.s_model),
    params: toParamsFormValue(props.session.params),
  }));
  const { saving, saved, error, run, changed } = useSave();
  const [graph, setGraph] = useState<{ from_default: boolean; capabilities: { builtinTools: string[]; mcpServers: string[]; http: unknown; postgres: unknown } } | null>(null);
  useEffect(() => {
    apiFetch<typeof graph | { graph: null }>(`/api/sessions/${props.session.id}/capabilities`).then(
      (answer) => setGraph(answer && 'capabilities' in answer ? answer : null),
      () => setGraph(null),
    );
  }, [props.session.id]);
  const update = (patch: Partial<typeof form>) => {
    changed();
    setForm({ ...form, ...patch });
  };

  function save(event: React.FormEvent) {
    event.preventDefault();
    void run(async () => {
      const result = await apiFetch<{ session: SessionJson }>(`/api/sessions/${props.session.id}`, {
        method: 'PATCH',
        body: { models: { c_model: toLayerPayload(form.c_model), s_model: toLayerPayload(form.s_model) }, params: toParamsPayload(form.params) },
      });
      props.onSaved(result.session);
    });
  }

  return (
    <form onSubmit={save} className="space-y-4" aria-label="Session settings">
      {graph && (
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="session-capabilities">
          {graph.from_default ? 'Capabilities: the default graph (everything) when this session was created' : `Capabilities from ${props.session.persona}'s graph when this session was created`}:{' '}
          {[...graph.capabilities.builtinTools, ...graph.capabilities.mcpServers.map((server) => `MCP ${server}`), ...(graph.capabilities.http ? ['http'] : []), ...(graph.capabilities.postgres ? ['postgres'] : [])].join(', ') || 'no tools'}.{' '}
          <a className="underline" href={`/personas/${encodeURIComponent(props.session.persona)}/capabilities`}>
            Edit the persona&apos;s graph
          </a>{' '}
          (new sessions only).
        </p>
      )}
      <ParamsFields value={form.params} onChange={(params) => update({ params })} graphTools={graph && !graph.from_default ? graph.capabilities.builtinTools : undefined} />
      <div className="grid gap-4 lg:grid-cols-2">
        <LayerWithFallbacks id="session-c" legend="Internal Dialog (C_model)" description="Answers and keeps private thoughts." value={form.c_model} onChange={(c_model) => update({ c_model })} />
        <LayerWithFallbacks id="session-s" legend="Subconscious (S_model)" description="The perpetual loop; a cheap, fast model." value={form.s_model} onChange={(s_model) => update({ s_model })} />
      </div>
      <ErrorBanner message={error} />
      <div className="flex items-center gap-3">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          Save session settings
        </button>
        {saved && (
          <span role="status" className="text-sm text-green-700 dark:text-green-400">
            Saved — applies from the next call
          </span>
        )}
      </div>
    </form>
  );
}
