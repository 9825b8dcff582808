'use client';

import { memo, useMemo } from 'react';
import type { ToolCallJson } from '@/lib/store/tool-calls-repository';
import { internalTurns, type SessionState, type TurnView } from './session-state';
import { StatusPill, ToolOutput, callSubject } from './tool-call-card';
import { FilePreviews, splitFileLines } from './file-previews';
import { fileLinesIn } from '@/lib/attachments/file-line';
import { EmptyLayer, formatTime, LoadEarlier, PanelFrame, useStickToBottom } from './panel-frame';

function Thought(props: { kind: 'loud' | 'quiet'; text: string; streaming?: boolean }) {
  const loud = props.kind === 'loud';
  return (
    <div className={`rounded-md border-l-4 px-3 py-1.5 ${loud ? 'border-indigo-500 bg-indigo-50 dark:bg-indigo-950/40' : 'border-zinc-400 bg-zinc-50 italic dark:bg-zinc-800/60'}`}>
      <p className="text-[11px] font-semibold uppercase tracking-wide text-zinc-500 not-italic">
        {loud ? 'ID_loud · externalised' : 'ID_quiet · internal'}
      </p>
      <p className="whitespace-pre-wrap break-words" aria-busy={props.streaming || undefined}>
        {props.text || <span className="text-zinc-500 dark:text-zinc-400">{props.streaming ? '…' : '(nothing)'}</span>}
      </p>
    </div>
  );
}

function duration(call: ToolCallJson): string | null {
  if (!call.started_at) return null;
  const end = call.finished_at ? Date.parse(call.finished_at) : Date.now();
  const ms = end - Date.parse(call.started_at);
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Every call of a turn, live: name, arguments, status, duration, exit code, output. */
function ToolActivity({ calls, output }: { calls: ToolCallJson[]; output: Record<string, string> }) {
  if (calls.length === 0) return null;
  return (
    <ul className="space-y-1.5" aria-label="Tool calls">
      {calls.map((call) => {
        const subject = callSubject(call);
        const took = duration(call);
        const text = call.result ?? output[call.id] ?? '';
        return (
          <li key={call.id} className="rounded-md border border-zinc-200 px-2 py-1.5 text-xs dark:border-zinc-700">
            <p className="flex flex-wrap items-center gap-2">
              <span className="font-mono font-semibold">{call.name}</span>
              <span className="truncate font-mono text-zinc-600 dark:text-zinc-400" title={subject}>
                {subject.length > 80 ? `${subject.slice(0, 80)}…` : subject}
              </span>
              <StatusPill status={call.status} />
              {took && <span className="text-zinc-500">{took}</span>}
              {call.exit_code !== null && <span className="text-zinc-500">exit {call.exit_code}</span>}
            </p>
            {/* What the agent looked at or showed, in sight without opening the output. */}
            <FilePreviews files={fileLinesIn(text)} />
            {text && (
              <details className="mt-1">
                <summary className="cursor-pointer text-zinc-500">output</summary>
                <ToolOutput text={text} label={`Output of ${call.name}`} files={false} />
              </details>
            )}
          </li>
        );
      })}
    </ul>
  );
}

const callsOfTurn = (state: SessionState, turnId: string) =>
  Object.values(state.toolCalls)
    .filter((call) => call.turn_id === turnId && call.session_id === state.session?.id)
    .sort((a, b) => a.step - b.step || a.position - b.position);

/** Memoised: stored turns do not re-render while a new one streams. */
const TurnItem = memo(function TurnItem({ turn, calls, output }: { turn: TurnView; calls: ToolCallJson[]; output: Record<string, string> }) {
  return (
    <li className="offscreen-lazy space-y-1.5" aria-label={turn.spontaneous ? 'Spontaneous turn' : 'Turn answering the user'}>
      <p className="text-xs text-zinc-500">
        {turn.spontaneous ? 'Triggered by the Subconscious' : 'Answering the user'}
        {turn.loud && <> · {formatTime(turn.loud.created_at)}</>}
        {turn.loud?.interrupted && ' · stopped before the end'}
      </p>
      {/* The files it showed are in its tool activity: the line that names them is not repeated. */}
      <Thought kind="loud" text={splitFileLines(turn.loud?.content ?? '').text} />
      <ToolActivity calls={calls} output={output} />
      <Thought kind="quiet" text={turn.quiet?.content ?? ''} />
    </li>
  );
});

/** The Internal Dialog: each turn's ID_loud and ID_quiet, live, with what started it. */
export function InternalPanel(props: { state: SessionState; onLoadEarlier: () => void; wordsOf?: string }) {
  const { state } = props;
  const turns = useMemo(() => internalTurns(state.history.internal.messages), [state.history.internal.messages]);
  const streaming = state.streaming;
  const scroller = useStickToBottom([turns.length, streaming?.loud.length, streaming?.quiet.length, Object.keys(state.toolCalls).length]);
  return (
    <PanelFrame title="Internal Dialog" subtitle="What it says (ID_loud) and what it keeps to itself (ID_quiet)" labelledBy="panel-internal" scrollRef={scroller}>
      <LoadEarlier visible={state.history.internal.nextBefore !== null} onClick={props.onLoadEarlier} />
      {turns.length === 0 && !streaming && <EmptyLayer wordsOf={props.wordsOf} empty="No turns yet." />}
      <ol className="space-y-4" aria-label="Turns">
        {turns.map((turn) => (
          <TurnItem key={turn.turnId} turn={turn} calls={callsOfTurn(state, turn.turnId)} output={state.toolOutput} />
        ))}
        {streaming && (
          <li className="space-y-1.5" aria-label="Turn in progress">
            <p className="text-xs text-zinc-500">{streaming.spontaneous ? 'Triggered by the Subconscious' : 'Answering the user'} · now</p>
            <Thought kind="loud" text={streaming.loud} streaming />
            <ToolActivity calls={callsOfTurn(state, streaming.turnId)} output={state.toolOutput} />
            <Thought kind="quiet" text={streaming.quiet} streaming />
          </li>
        )}
      </ol>
    </PanelFrame>
  );
}
