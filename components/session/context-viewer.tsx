'use client';

import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { formatTime } from './panel-frame';
import { errorText } from '@/lib/errors/error-text';

interface PromptPart {
  text: string;
  estimated_tokens: number;
  cache?: boolean;
}

interface PromptJson {
  at: string;
  backend: string;
  model: string;
  max_tokens: number;
  system: PromptPart[];
  user: PromptPart;
  reported_input_tokens: number | null;
}

interface SummaryJson {
  summary: string;
  from_cycle: number;
  to_cycle: number;
}

interface BudgetJson {
  context_window: number;
  max_tokens: number;
}

interface ContextJson {
  running: boolean;
  internal: PromptJson | null;
  subconscious: PromptJson | null;
  summaries: { internal: SummaryJson | null; subconscious: SummaryJson | null };
  budgets: { internal: BudgetJson; subconscious: BudgetJson };
}

function Part(props: { title: string; part: PromptPart }) {
  return (
    <div>
      <p className="text-xs font-semibold text-zinc-500">
        {props.title} · ≈{props.part.estimated_tokens.toLocaleString('en')} tokens{props.part.cache ? ' · cached prefix' : ''}
      </p>
      <pre className="mt-1 max-h-64 overflow-auto rounded bg-zinc-100 p-2 text-xs whitespace-pre-wrap dark:bg-zinc-800">{props.part.text}</pre>
    </div>
  );
}

function LayerPrompt(props: { name: string; prompt: PromptJson | null; summary: SummaryJson | null; budget: BudgetJson }) {
  const { prompt, summary, budget } = props;
  return (
    <section aria-label={`${props.name} prompt`} className="space-y-2">
      <h3 className="font-semibold">{props.name}</h3>
      <p className="text-xs text-zinc-500">
        Budget: a {budget.context_window.toLocaleString('en')}-token window, {budget.max_tokens.toLocaleString('en')} kept for the answer.{' '}
        {summary ? `Summary in effect: cycles ${summary.from_cycle}–${summary.to_cycle}.` : 'No summary yet.'}
      </p>
      {!prompt ? (
        <p className="text-sm text-zinc-500">No call yet since the mind started.</p>
      ) : (
        <>
          <p className="text-xs text-zinc-500">
            {formatTime(prompt.at)} · {prompt.backend} · {prompt.model} · max_tokens {prompt.max_tokens}
            {prompt.reported_input_tokens !== null && ` · the backend counted ${prompt.reported_input_tokens.toLocaleString('en')} input tokens`}
          </p>
          {prompt.system.map((part, index) => (
            <Part key={index} title={`System, part ${index + 1}`} part={part} />
          ))}
          <Part title="User" part={prompt.user} />
        </>
      )}
    </section>
  );
}

/** The exact last prompt each layer sent: what the model saw, part by part. */
export function ContextViewer({ sessionId }: { sessionId: string }) {
  const [context, setContext] = useState<ContextJson | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    try {
      setContext(await apiFetch<ContextJson>(`/api/sessions/${sessionId}/context`));
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <details className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800" onToggle={(event) => (event.currentTarget.open ? void load() : undefined)}>
      <summary className="cursor-pointer font-semibold">Context: the last prompt of each layer</summary>
      <div className="mt-4 space-y-4">
        <button type="button" className="btn text-xs" onClick={() => void load()}>
          Refresh
        </button>
        <ErrorBanner message={error} />
        {context && !context.running && <p className="text-sm text-zinc-500">The mind is not running: resume the session to see its prompts.</p>}
        {context && (
          <div className="grid gap-4 lg:grid-cols-2">
            <LayerPrompt name="Internal Dialog" prompt={context.internal} summary={context.summaries.internal} budget={context.budgets.internal} />
            <LayerPrompt name="Subconscious" prompt={context.subconscious} summary={context.summaries.subconscious} budget={context.budgets.subconscious} />
          </div>
        )}
      </div>
    </details>
  );
}
