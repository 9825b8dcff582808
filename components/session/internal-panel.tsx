'use client';

import { memo, useMemo } from 'react';
import { internalTurns, type SessionState, type TurnView } from './session-state';
import { formatTime, LoadEarlier, PanelFrame, useStickToBottom } from './panel-frame';

function Thought(props: { kind: 'loud' | 'quiet'; text: string; streaming?: boolean }) {
  const loud = props.kind === 'loud';
  return (
    <div className={`rounded-md border-l-4 px-3 py-1.5 ${loud ? 'border-indigo-500 bg-indigo-50 dark:bg-indigo-950/40' : 'border-zinc-400 bg-zinc-50 italic dark:bg-zinc-800/60'}`}>
      <p className="text-[11px] font-semibold uppercase tracking-wide text-zinc-500 not-italic">
        {loud ? 'ID_loud · externalised' : 'ID_quiet · internal'}
      </p>
      <p className="whitespace-pre-wrap break-words" aria-busy={props.streaming || undefined}>
        {props.text || <span className="text-zinc-400">{props.streaming ? '…' : '(nothing)'}</span>}
      </p>
    </div>
  );
}

/** Memoised: stored turns do not re-render while a new one streams. */
const TurnItem = memo(function TurnItem({ turn }: { turn: TurnView }) {
  return (
    <li className="offscreen-lazy space-y-1.5" aria-label={turn.spontaneous ? 'Spontaneous turn' : 'Turn answering the user'}>
      <p className="text-xs text-zinc-500">
        {turn.spontaneous ? 'Triggered by the Subconscious' : 'Answering the user'}
        {turn.loud && <> · {formatTime(turn.loud.created_at)}</>}
        {turn.loud?.interrupted && ' · stopped before the end'}
      </p>
      <Thought kind="loud" text={turn.loud?.content ?? ''} />
      <Thought kind="quiet" text={turn.quiet?.content ?? ''} />
    </li>
  );
});

/** The Internal Dialog: each turn's ID_loud and ID_quiet, live, with what started it. */
export function InternalPanel(props: { state: SessionState; onLoadEarlier: () => void }) {
  const { state } = props;
  const turns = useMemo(() => internalTurns(state.history.internal.messages), [state.history.internal.messages]);
  const streaming = state.streaming;
  const scroller = useStickToBottom([turns.length, streaming?.loud.length, streaming?.quiet.length]);
  return (
    <PanelFrame title="Internal Dialog" subtitle="What it says (ID_loud) and what it keeps to itself (ID_quiet)" labelledBy="panel-internal" scrollRef={scroller}>
      <LoadEarlier visible={state.history.internal.nextBefore !== null} onClick={props.onLoadEarlier} />
      {turns.length === 0 && !streaming && <p className="text-zinc-500">No turns yet.</p>}
      <ol className="space-y-4" aria-label="Turns">
        {turns.map((turn) => (
          <TurnItem key={turn.turnId} turn={turn} />
        ))}
        {streaming && (
          <li className="space-y-1.5" aria-label="Turn in progress">
            <p className="text-xs text-zinc-500">{streaming.spontaneous ? 'Triggered by the Subconscious' : 'Answering the user'} · now</p>
            <Thought kind="loud" text={streaming.loud} streaming />
            <Thought kind="quiet" text={streaming.quiet} streaming />
          </li>
        )}
      </ol>
    </PanelFrame>
  );
}
