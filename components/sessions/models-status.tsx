'use client';

import { useCallback, useEffect, useState } from 'react';
import { SettingsLink } from '@/components/settings/settings-link';
import { apiFetch } from '@/components/api-client';
import type { SettingsJson } from '@/components/settings/settings-types';
import type { Probe } from '@/lib/backends/detect-backends';
import { defaultModelIds } from '@/lib/config/model-catalog';
import type { LayerModelConfig } from '@/lib/config/model-config';
import type { AvailabilityReport } from '@/lib/setup/backend-availability';
import { errorText } from '@/lib/errors/error-text';

/** A one-click choice: both layers on one backend that answered the check. */
interface Choice {
  key: string;
  label: string;
  models: string[];
  layers: (model: string) => { c_model: LayerModelConfig; s_model: LayerModelConfig };
}

function choicesOf(report: AvailabilityReport): Choice[] {
  const choices: Choice[] = [];
  for (const server of report.local_servers) {
    if (server.status !== 'ready') continue;
    choices.push({
      key: server.name,
      label: server.name,
      models: server.models,
      layers: (model) => ({
        c_model: { backend: 'openai_compatible', model, max_tokens: 4096, endpoint: server.endpoint },
        s_model: { backend: 'openai_compatible', model, max_tokens: 2048, endpoint: server.endpoint },
      }),
    });
  }
  if (report.claude_cli.status === 'ready' && report.defaults.backend !== 'claude_code_cli') {
    const ids = defaultModelIds.claude_code_cli!;
    choices.push({ key: 'cli', label: 'the Claude Code CLI', models: [ids.c_model], layers: () => ({ c_model: { backend: 'claude_code_cli', model: ids.c_model, max_tokens: 4096 }, s_model: { backend: 'claude_code_cli', model: ids.s_model, max_tokens: 2048 } }) });
  }
  if (report.anthropic_api.status === 'ready' && report.defaults.backend !== 'anthropic') {
    const ids = defaultModelIds.anthropic!;
    choices.push({ key: 'anthropic', label: 'the Anthropic API', models: [ids.c_model], layers: () => ({ c_model: { backend: 'anthropic', model: ids.c_model, max_tokens: 4096 }, s_model: { backend: 'anthropic', model: ids.s_model, max_tokens: 2048 } }) });
  }
  return choices;
}

const tone: Record<Probe['status'], string> = {
  ready: 'text-green-700 dark:text-green-400',
  not_ready: 'text-amber-700 dark:text-amber-300',
  absent: 'text-zinc-500',
};

/** The home page's "Models": what can answer here, and when the defaults cannot, how to fix it. */
export function ModelsStatus() {
  const [report, setReport] = useState<AvailabilityReport | null>(null);
  const [checking, setChecking] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<Record<string, string>>({});
  const [applied, setApplied] = useState<string | null>(null);

  const load = useCallback(async (force: boolean) => {
    setChecking(true);
    setError(null);
    try {
      const result = await apiFetch<{ availability: AvailabilityReport }>('/api/backends/available', force ? { method: 'POST' } : {});
      setReport(result.availability);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setChecking(false);
    }
  }, []);

  useEffect(() => {
    void load(false);
  }, [load]);

  async function use(choice: Choice) {
    const model = picked[choice.key] ?? choice.models[0]!;
    setError(null);
    try {
      const { settings } = await apiFetch<{ settings: SettingsJson }>('/api/settings');
      await apiFetch('/api/settings', { method: 'PUT', body: { ...choice.layers(model), params: settings.params } });
      setApplied(`Both layers now use ${choice.label} (${model}). New sessions start with it.`);
      await load(true);
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  const probes: [string, Probe][] = report
    ? [['Claude Code CLI', report.claude_cli], ['Anthropic API', report.anthropic_api], ...report.local_servers.map((server): [string, Probe] => [server.name, server])]
    : [];
  const needsSetup = report !== null && report.defaults.status !== 'ready';
  const choices = report ? choicesOf(report) : [];

  return (
    <section aria-label="Models" className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="font-semibold">Models</h2>
        {report && (
          <span className={tone[report.defaults.status]}>
            Defaults: {report.defaults.backend} · {report.defaults.model} — {report.defaults.status === 'ready' ? 'ready' : report.defaults.message}
          </span>
        )}
        <button type="button" className="btn ml-auto" disabled={checking} onClick={() => void load(true)}>
          {checking ? 'Checking…' : 'Check again'}
        </button>
      </div>
      {!report && checking && <p aria-busy="true">Checking what can answer on this machine…</p>}
      {report && (
        <ul className="flex flex-wrap gap-x-5 gap-y-1" aria-label="Backends found">
          {probes.map(([name, probe]) => (
            <li key={name} className={tone[probe.status]} title={probe.message}>
              {probe.status === 'ready' ? '●' : '○'} {name}: {probe.status === 'ready' ? probe.message.replace(/^.*?: /, '') : probe.status === 'absent' ? 'not found' : 'not ready'}
            </li>
          ))}
        </ul>
      )}
      {applied && (
        <p role="status" className="text-green-700 dark:text-green-400">
          {applied}
        </p>
      )}
      {needsSetup && (
        <div role="region" aria-label="Set up a model" className="space-y-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
          <p className="font-medium">
            {report.usable ? 'Your default models cannot answer yet, but something on this machine can.' : 'Nothing can answer yet: a new session would fail on every call. Set up one of these:'}
          </p>
          {choices.map((choice) => (
            <div key={choice.key} className="flex flex-wrap items-center gap-2">
              {choice.models.length > 1 && (
                <label className="flex items-center gap-2">
                  <span>{choice.label} model</span>
                  <select className="field w-auto" value={picked[choice.key] ?? choice.models[0]} onChange={(event) => setPicked({ ...picked, [choice.key]: event.target.value })}>
                    {choice.models.map((model) => (
                      <option key={model}>{model}</option>
                    ))}
                  </select>
                </label>
              )}
              <button type="button" className="btn btn-primary" onClick={() => void use(choice)}>
                Use {choice.label} for both layers
              </button>
            </div>
          ))}
          <ul className="list-disc space-y-1 pl-5">
            {probes
              .filter(([, probe]) => probe.status !== 'ready' && probe.step)
              .map(([name, probe]) => (
                <li key={name}>
                  <strong>{name}</strong>: {probe.message}. {probe.step}
                </li>
              ))}
            {/* Not only the servers probed on their usual ports (issue 75 §9). */}
            <li>
              <strong>Any other OpenAI-compatible server</strong> (vLLM, LocalAI, llama.cpp’s server, a hosted one): in <SettingsLink section="models" /> choose
              “OpenAI-compatible” for each layer, give its address (…/v1) and a key if it needs one, then <em>Fetch models</em> and <em>Test connection</em>.
            </li>
          </ul>
        </div>
      )}
      {error && (
        <p role="alert" className="text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </section>
  );
}
