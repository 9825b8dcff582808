'use client';

import { memo, useMemo } from 'react';
import { latestMood, subconsciousCycles, type CycleView, type SessionState } from './session-state';
import { EmptyLayer, formatTime, LoadEarlier, PanelFrame, useStickToBottom } from './panel-frame';
import type { ConsolidationJson } from '@/lib/mind/events';

/** A stable colour per mood, so the timeline shows when the mood changes. */
function moodHue(mood: string): number {
  let hash = 0;
  for (const char of mood.toLowerCase()) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % 360;
}

/** The last cycles as a strip: one bar per cycle, coloured by mood, tall when it triggered speech. */
export function MoodTimeline({ cycles }: { cycles: CycleView[] }) {
  const capacity = 60;
  const shown = cycles.slice(-capacity);
  if (shown.length === 0) return null;
  const width = 6;
  return (
    <figure className="mt-2">
      <svg role="img" aria-label={`Mood over the last ${shown.length} cycles`} viewBox={`0 0 ${capacity * width} 24`} className="h-6 w-full" preserveAspectRatio="none">
        {shown.map((cycle, index) => {
          const mood = cycle.mood?.mood ?? '';
          const height = cycle.trigger ? 24 : cycle.sLoud ? 16 : 10;
          return (
            <rect key={cycle.cycle} x={index * width} y={24 - height} width={width - 1} height={height} fill={mood ? `hsl(${moodHue(mood)} 60% 55%)` : '#a1a1aa'}>
              <title>{`Cycle ${cycle.cycle}: ${mood || 'no mood'}${cycle.trigger ? ' · triggered speech' : ''}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="text-[11px] text-zinc-500">Each bar a cycle: colour = mood, tall = it wanted to speak, medium = it had something to say.</figcaption>
    </figure>
  );
}

const consolidationVerb: Record<ConsolidationJson['status'], string> = {
  running: 'Consolidating memory…',
  done: 'Consolidated memory',
  cancelled: 'Consolidation cancelled',
  failed: 'Consolidation failed',
};

/** The latest memory consolidation (while the user was away): what it kept, what it replaced, what it cost. */
function ConsolidationLine({ consolidations }: { consolidations: SessionState['consolidations'] }) {
  const latest = Object.values(consolidations).sort((a, b) => b.id - a.id)[0];
  if (!latest) return null;
  const cost = latest.cost_usd === null ? '' : ` · $${latest.cost_usd.toFixed(4)}`;
  return (
    <details className="mt-2 text-xs" data-testid="consolidation">
      <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
        <span className="font-semibold">{consolidationVerb[latest.status]}</span>
        {latest.status === 'done' && ` · ${latest.facts_added} fact${latest.facts_added === 1 ? '' : 's'}${latest.facts_superseded ? `, ${latest.facts_superseded} replaced` : ''}`}
        {latest.status !== 'running' && ` · ${latest.input_tokens + latest.output_tokens} tokens${cost}`}
        {' · '}
        <time dateTime={latest.started_at}>{formatTime(latest.started_at)}</time>
      </summary>
      {latest.error && <p className="mt-1 text-zinc-500">{latest.error}</p>}
      {latest.facts.length > 0 && (
        <ul className="mt-1 list-disc pl-4" aria-label="Facts consolidated">
          {latest.facts.map((fact) => (
            <li key={fact.id}>
              {fact.content}
              {fact.replaces !== null && <span className="text-zinc-500"> (replaces #{fact.replaces})</span>}
            </li>
          ))}
        </ul>
      )}
      <p className="mt-1 text-zinc-500">
        Messages {latest.from_message_id}–{latest.through_message_id}. See every memory on the <a className="underline" href="/memory">Memory page</a>.
      </p>
    </details>
  );
}

/** Memoised: stored cycles do not re-render while replies stream. */
const CycleItem = memo(function CycleItem({ cycle }: { cycle: CycleView }) {
  return (
    <li className="offscreen-lazy rounded-md border border-zinc-200 p-2 dark:border-zinc-800" aria-label={`Cycle ${cycle.cycle}`}>
      <p className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
        <span className="font-semibold text-zinc-700 dark:text-zinc-300">Cycle {cycle.cycle}</span>
        <time dateTime={cycle.at}>{formatTime(cycle.at)}</time>
        {cycle.trigger && <span className="rounded bg-amber-100 px-1.5 text-amber-800 dark:bg-amber-950 dark:text-amber-300">trigger</span>}
      </p>
      <dl className="mt-1 space-y-1">
        <div>
          <dt className="inline text-[11px] font-semibold uppercase text-blue-700 dark:text-blue-300">S_loud </dt>
          <dd className="inline whitespace-pre-wrap break-words">{cycle.sLoud || <span className="text-zinc-500 dark:text-zinc-400">(nothing)</span>}</dd>
        </div>
        <div>
          <dt className="inline text-[11px] font-semibold uppercase text-zinc-500">S_quiet </dt>
          <dd className="inline whitespace-pre-wrap break-words italic">{cycle.sQuiet || <span className="text-zinc-500 dark:text-zinc-400">(nothing)</span>}</dd>
        </div>
        {cycle.mood && (
          <div>
            <dt className="inline text-[11px] font-semibold uppercase text-zinc-500">M&amp;C </dt>
            <dd className="inline">
              <strong>{cycle.mood.mood || '—'}</strong> · {cycle.mood.criteria}
            </dd>
          </div>
        )}
      </dl>
    </li>
  );
});

/** The Subconscious: every cycle's S_loud, S_quiet, mood and criteria and trigger; the mood now. */
export function SubconsciousPanel(props: { state: SessionState; onLoadEarlier: () => void; wordsOf?: string }) {
  const { state } = props;
  const cycles = useMemo(() => subconsciousCycles(state.history.subconscious.messages, state.moods), [state.history.subconscious.messages, state.moods]);
  const mood = latestMood(state);
  const scroller = useStickToBottom([cycles.length]);
  return (
    <PanelFrame
      title="Subconscious"
      subtitle="S_loud, S_quiet, mood and criteria, cycle by cycle"
      labelledBy="panel-subconscious"
      scrollRef={scroller}
      header={
        <div className="mt-2">
          <p className="text-sm" aria-live="polite">
            <span className="text-zinc-500">Mood now: </span>
            <strong data-testid="current-mood">{mood?.mood || '—'}</strong>
            {state.mind && (
              <span className="ml-2 text-xs text-zinc-500">
                cycle {state.mind.cycle} · {state.mind.cycleRunning ? 'thinking…' : state.mind.activity}
              </span>
            )}
          </p>
          <MoodTimeline cycles={cycles} />
          <ConsolidationLine consolidations={state.consolidations} />
        </div>
      }
    >
      <LoadEarlier visible={state.history.subconscious.nextBefore !== null} onClick={props.onLoadEarlier} />
      {cycles.length === 0 && <EmptyLayer wordsOf={props.wordsOf} empty="No cycles yet." />}
      <ol className="space-y-3" aria-label="Cycles">
        {cycles.map((cycle) => (
          <CycleItem key={cycle.cycle} cycle={cycle} />
        ))}
      </ol>
    </PanelFrame>
  );
}
