'use client';

import { memo } from 'react';
import { seesImages } from '@/lib/backends/model-limits';
import { MarkdownView } from '@/components/personas/markdown-view';
import type { MessageJson } from '@/lib/store/messages-repository';
import type { ToolCallJson } from '@/lib/store/tool-calls-repository';
import { isQueued, type SessionState } from './session-state';
import { DecideAll, ToolCallCard } from './tool-call-card';
import { ElicitationCard } from './elicitation-card';
import { Composer, type MessageAttachment } from './composer';
import { MessageWithAttachments } from './attachment-blocks';
import { FilePreviews, splitFileLines } from './file-previews';
import { ReadAloud } from './read-aloud';
import { EmptyLayer, formatTime, LoadEarlier, PanelFrame, useStickToBottom } from './panel-frame';

/** The agent's words, and the files it showed (show_file) below them. */
function AgentWords(props: { content: string }) {
  const { text, files } = splitFileLines(props.content);
  return (
    <>
      {text && <MarkdownView text={text} />}
      <FilePreviews files={files} />
    </>
  );
}

/** Memoised: a streaming reply re-renders the chat on every delta, but not the stored bubbles. */
const Bubble = memo(function Bubble(props: { sessionId: string; message: MessageJson; queued: boolean }) {
  const { message } = props;
  const mine = message.tag === 'ED_user';
  return (
    <li className={`offscreen-lazy flex ${mine ? 'justify-end' : 'justify-start'}`} aria-label={mine ? 'You' : 'Agent'}>
      <div
        className={`max-w-[85%] rounded-lg px-3 py-2 ${
          mine ? 'bg-indigo-600 text-white [&_code]:bg-indigo-500' : 'bg-zinc-100 dark:bg-zinc-800'
        } ${message.spontaneous ? 'ring-2 ring-amber-400/70' : ''}`}
      >
        {mine ? <MessageWithAttachments content={message.content} /> : <AgentWords content={message.content} />}
        <p className={`mt-1 flex flex-wrap gap-2 text-[11px] ${mine ? 'text-indigo-100' : 'text-zinc-600 dark:text-zinc-400'}`}>
          <time dateTime={message.created_at}>{formatTime(message.created_at)}</time>
          {message.spontaneous && <span className="font-medium text-amber-700 dark:text-amber-300">spoke on its own</span>}
          {message.interrupted && <span className="font-medium">stopped before the end</span>}
          {props.queued && <span className="font-medium">queued</span>}
          {!mine && <ReadAloud sessionId={props.sessionId} messageId={message.id} text={splitFileLines(message.content).text} />}
        </p>
      </div>
    </li>
  );
});

/** The External Dialog: the chat, the reply as it streams, and the composer. */
export function ChatPanel(props: {
  state: SessionState;
  onSend: (text: string, attachments: MessageAttachment[]) => Promise<boolean>;
  onStop: () => void;
  onLoadEarlier: () => void;
  onError: (message: string) => void;
  /** Whose words these are, when they are not the owner's to read (then nothing to write here either). */
  wordsOf?: string;
}) {
  const { state } = props;
  // Calls a person decides on are cards in the chat, among the messages by time; those of the
  // turn being written come after its words so far. (Every call is in the Internal panel.)
  const cards = Object.values(state.toolCalls)
    .filter((call) => call.approval === 'required')
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.step - b.step || a.position - b.position);
  const liveCards = cards.filter((call) => call.turn_id === state.streaming?.turnId);
  const waiting = cards.filter((call) => call.status === 'awaiting_approval');
  const timeline: ({ kind: 'message'; message: MessageJson } | { kind: 'call'; call: ToolCallJson })[] = [
    ...state.history.external.messages.map((message) => ({ kind: 'message' as const, message })),
    ...cards.filter((call) => call.turn_id !== state.streaming?.turnId).map((call) => ({ kind: 'call' as const, call })),
  ].sort((a, b) => (a.kind === 'message' ? a.message.created_at : a.call.created_at).localeCompare(b.kind === 'message' ? b.message.created_at : b.call.created_at));
  // A card raised in a specialist's session (its task delegated from one of ours) names the specialist.
  const via = (call: ToolCallJson) => (call.session_id !== state.session?.id ? ((call.task_id && state.tasks[call.task_id]?.specialist) ?? 'a specialist') : undefined);
  const messages = state.history.external.messages;
  const streaming = state.streaming;
  const paused = state.session?.status !== 'active';
  const scroller = useStickToBottom([messages.length, streaming?.loud.length, cards.length]);

  return (
    <PanelFrame
      title="External Dialog"
      subtitle="The conversation: you and the agent"
      labelledBy="panel-external"
      scrollRef={scroller}
      footer={
        props.wordsOf ? undefined : <Composer
          sessionId={state.session?.id ?? ''}
          blindModel={state.session && seesImages(state.session.models.c_model) === false ? state.session.models.c_model.model : null}
          paused={paused}
          streaming={streaming !== null}
          onSend={props.onSend}
          onStop={props.onStop}
          onError={props.onError}
        />
      }
    >
      <LoadEarlier visible={state.history.external.nextBefore !== null} onClick={props.onLoadEarlier} />
      {messages.length === 0 && !streaming && <EmptyLayer wordsOf={props.wordsOf} empty="No messages yet. Say something to start." />}
      <ol className="space-y-3" aria-label="Messages">
        {timeline.map((item) =>
          item.kind === 'message' ? (
            <Bubble key={`m${item.message.id}`} sessionId={state.session?.id ?? ''} message={item.message} queued={isQueued(item.message, state)} />
          ) : (
            <ToolCallCard key={item.call.id} call={item.call} via={via(item.call)} liveOutput={state.toolOutput[item.call.id]} onError={props.onError} />
          ),
        )}
        {streaming && (
          <li className="flex justify-start" aria-label="Agent (replying)">
            <div className={`max-w-[85%] rounded-lg bg-zinc-100 px-3 py-2 dark:bg-zinc-800 ${streaming.spontaneous ? 'ring-2 ring-amber-400/70' : ''}`} aria-live="polite" aria-busy="true">
              {streaming.loud ? <MarkdownView text={streaming.loud} /> : <p className="text-sm text-zinc-500">thinking…</p>}
              {streaming.spontaneous && <p className="mt-1 text-[11px] font-medium text-amber-700 dark:text-amber-300">speaking on its own</p>}
            </div>
          </li>
        )}
        {liveCards.map((call) => (
          <ToolCallCard key={call.id} call={call} via={via(call)} liveOutput={state.toolOutput[call.id]} onError={props.onError} />
        ))}
        {Object.values(state.elicitations)
          .sort((a, b) => a.created_at.localeCompare(b.created_at))
          .map((elicitation) => (
            <ElicitationCard key={elicitation.id} elicitation={elicitation} onError={props.onError} />
          ))}
        <DecideAll calls={waiting} onError={props.onError} />
      </ol>
    </PanelFrame>
  );
}
