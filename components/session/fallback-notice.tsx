'use client';

import type { MindState } from '@/lib/mind/events';

const layerNames: Record<string, string> = { internal: 'The Internal Dialog', subconscious: 'The Subconscious', summary: 'Summaries', memory: 'Memory' };

/** A layer answering on a fallback model (issue 78 §2): which model, why the first was left, when it is asked again. */
export function FallbackNotice(props: { fallbacks: MindState['fallbacks'] }) {
  if (!props.fallbacks?.length) return null;
  return (
    <div role="status" aria-label="Fallback models" data-testid="fallback-notice" className="space-y-1 rounded-md border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100">
      {props.fallbacks.map((used) => (
        <p key={used.layer}>
          {layerNames[used.layer] ?? used.layer} answers on its fallback {used.backend} · {used.model} — {used.reason}. The first model is asked again after{' '}
          {new Date(used.until).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}.
        </p>
      ))}
    </div>
  );
}
