'use client';

import { decisionAuthorWords } from '@/lib/store/tool-call-types';
import { SettingsLink } from '@/components/settings/settings-link';
import { useAsPerson } from './viewer-context';
import { memo, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { fileLinesIn } from '@/lib/attachments/file-line';
import type { ToolCallJson } from '@/lib/store/tool-calls-repository';
import { FilePreviews } from './file-previews';
import { TrustSourceButton } from './trust-source-button';
import { MemoryCardNote } from './memory-card-note';
import { errorText } from '@/lib/errors/error-text';

/** The line a person reads first: the command, the code, the path — not the JSON. */
export function callSubject(call: ToolCallJson): string {
  const args = call.args ?? {};
  for (const key of ['command', 'code', 'path', 'pattern'] as const) {
    if (typeof args[key] === 'string') return args[key] as string;
  }
  return JSON.stringify(args);
}

const editableKey = (call: ToolCallJson): 'command' | 'code' | null =>
  typeof call.args?.command === 'string' ? 'command' : typeof call.args?.code === 'string' ? 'code' : null;

const statusText: Record<ToolCallJson['status'], string> = {
  proposed: 'proposed',
  awaiting_approval: 'waiting for your decision',
  approved: 'approved',
  denied: 'denied',
  expired: 'expired',
  running: 'running',
  succeeded: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
};

export function StatusPill({ status }: { status: ToolCallJson['status'] }) {
  const colour =
    status === 'awaiting_approval'
      ? 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200'
      : status === 'succeeded'
        ? 'bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200'
        : status === 'running' || status === 'approved'
          ? 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200'
          : 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200';
  return <span className={`rounded-full px-2 py-0.5 text-[11px] font-medium ${colour}`}>{statusText[status]}</span>;
}

/** Output with the rest behind "show all": the card stays readable with a megabyte of it. */
export function ToolOutput({ text, label, files = true }: { text: string; label: string; files?: boolean }) {
  const [all, setAll] = useState(false);
  const limit = 2_000;
  const shown = all || text.length <= limit ? text : `${text.slice(0, limit)}…`;
  return (
    <div>
      <pre aria-label={label} className="max-h-80 overflow-auto rounded bg-zinc-900 p-2 text-[12px] whitespace-pre-wrap text-zinc-100">
        {shown}
      </pre>
      {text.length > limit && (
        <button type="button" className="mt-1 text-xs text-indigo-700 hover:underline dark:text-indigo-300" onClick={() => setAll(!all)}>
          {all ? 'Show less' : `Show all (${text.length.toLocaleString()} characters)`}
        </button>
      )}
      {files && <FilePreviews files={fileLinesIn(text)} />}
    </div>
  );
}

function decisionLine(call: ToolCallJson): string | null {
  const decision = call.decision;
  if (!decision) return null;
  const who = decisionAuthorWords(decision.by);
  if (decision.decision === 'deny') return `Denied by ${who}${decision.reason ? `: ${decision.reason}` : ''}`;
  return decision.by.via === 'rule:policy' ? null : `Approved by ${who}${decision.editedArgs ? ' (edited)' : ''}`;
}

/**
 * A tool call in the chat. Waiting for a decision: the command or code, the agent's
 * explanation, Approve / Deny with a reason / Edit then approve, and "always allow". The server
 * applies the first decision; this card only asks.
 */
/** `via`: the specialist whose session raised the card, when it is shown in the parent's chat. */
export const ToolCallCard = memo(function ToolCallCard(props: { call: ToolCallJson; liveOutput?: string; via?: string; onError: (message: string) => void }) {
  // What the server answered a decision made here: shown at once, whether or not the socket's
  // event has come yet (red-team round 4: a 200 whose card still looked waiting).
  const asPerson = useAsPerson();
  const [answered, setAnswered] = useState<ToolCallJson | null>(null);
  const call = answered && props.call.status === 'awaiting_approval' ? answered : props.call;
  const [reason, setReason] = useState('');
  const [editing, setEditing] = useState(false);
  const key = editableKey(call);
  const [edited, setEdited] = useState(key ? String(call.args?.[key] ?? '') : '');
  const [remember, setRemember] = useState<'' | 'session' | 'persona'>('');
  const [sending, setSending] = useState(false);
  const waiting = call.status === 'awaiting_approval';
  const explanation = typeof call.args?.explanation === 'string' ? call.args.explanation : null;

  async function decide(decision: 'approve' | 'deny') {
    setSending(true);
    try {
      const { tool_call: decided } = await apiFetch<{ tool_call: ToolCallJson }>(`/api/tool-calls/${call.id}/decision`, {
        method: 'POST',
        body: {
          decision,
          session_id: call.session_id,
          args_hash: call.args_hash,
          ...(decision === 'deny' && reason.trim() && { reason: reason.trim() }),
          ...(decision === 'approve' && editing && key && { edited_args: { ...call.args, [key]: edited } }),
          ...(decision === 'approve' && remember && { remember }),
        },
      });
      setAnswered(decided);
    } catch (caught) {
      props.onError(errorText(caught));
    } finally {
      setSending(false);
    }
  }

  async function stop() {
    try {
      await apiFetch(`/api/tool-calls/${call.id}/cancel`, { method: 'POST' });
    } catch (caught) {
      props.onError(errorText(caught));
    }
  }

  const decided = decisionLine(call);
  const output = call.result ?? props.liveOutput ?? '';
  return (
    <li className="flex justify-start">
      <section
        aria-label={`Tool call ${call.name}`}
        className={`w-full max-w-[95%] space-y-2 rounded-lg border p-3 text-sm ${waiting ? 'border-amber-400 bg-amber-50/60 dark:bg-amber-950/30' : 'border-zinc-200 dark:border-zinc-700'}`}
      >
        <header className="flex flex-wrap items-center gap-2">
          <span className="font-mono font-semibold">{call.name}</span>
          <StatusPill status={call.status} />
          {props.via && (
            <a className="text-xs text-indigo-700 underline dark:text-indigo-300" href={`/sessions/${call.session_id}`} data-testid="card-via">
              {props.via} (specialist)
            </a>
          )}
          {call.exit_code !== null && <span className="text-xs text-zinc-500">exit {call.exit_code}</span>}
          {call.status === 'running' && (
            <button type="button" className="btn ml-auto" onClick={() => void stop()}>
              Stop
            </button>
          )}
        </header>
        {call.untrusted_reason && (
          <p role="note" aria-label="Why this asks" className="rounded border border-red-300 bg-red-50 p-2 text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-200">
            After reading {call.untrusted_reason}, the agent wants to send data out or act outside its workspace. What would leave is shown below, exactly; text from outside may
            have asked for it. <TrustSourceButton reason={call.untrusted_reason} />
          </p>
        )}
        {explanation && <p className="text-zinc-700 dark:text-zinc-300">{explanation}</p>}
        {call.name === 'forget_memory' && typeof call.args?.id === 'number' && <MemoryCardNote id={call.args.id} />}
        {editing && key ? (
          <label className="block">
            <span className="text-xs text-zinc-500">Edit the {key}, then approve</span>
            <textarea className="field font-mono text-[12px]" rows={Math.min(12, edited.split('\n').length + 1)} value={edited} onChange={(event) => setEdited(event.target.value)} />
          </label>
        ) : (
          <pre aria-label="Command" className="overflow-auto rounded bg-zinc-100 p-2 font-mono text-[12px] whitespace-pre-wrap dark:bg-zinc-800">
            {callSubject(call)}
          </pre>
        )}
        {waiting && (
          <div className="space-y-2">
            <label className="block">
              <span className="text-xs text-zinc-500">Reason (sent to the agent if you deny)</span>
              <input className="field" value={reason} onChange={(event) => setReason(event.target.value)} placeholder="optional" />
            </label>
            <div className="flex flex-wrap items-center gap-2">
              <button type="button" className="btn btn-primary" disabled={sending} onClick={() => void decide('approve')}>
                {editing ? 'Approve edited' : 'Approve'}
              </button>
              <button type="button" className="btn" disabled={sending} onClick={() => void decide('deny')}>
                Deny
              </button>
              {key && !editing && (
                <button type="button" className="btn" disabled={sending} onClick={() => setEditing(true)}>
                  Edit
                </button>
              )}
              <label className="ml-auto flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
                Always allow
                <select className="field w-auto py-0.5 text-xs" value={remember} onChange={(event) => setRemember(event.target.value as typeof remember)}>
                  <option value="">no, just this once</option>
                  <option value="session">in this session</option>
                  <option value="persona">for this persona</option>
                </select>
              </label>
            </div>
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              {asPerson ? (
                <>
                  Away from this page? Your phone can tell you of cards: <SettingsLink section="devices" />.
                </>
              ) : (
                <>
                  Away from this page? Cards reach a paired phone too: <SettingsLink section="channels" />.
                </>
              )}
            </p>
          </div>
        )}
        {decided && <p className="text-xs text-zinc-600 dark:text-zinc-400">{decided}</p>}
        {output && <ToolOutput text={output} label={`Output of ${call.name}`} />}
        {call.dropped_bytes > 0 && <p className="text-xs text-zinc-500">{call.dropped_bytes.toLocaleString()} more bytes of output were dropped.</p>}
      </section>
    </li>
  );
});

/** "Approve all" / "Deny all" when a step waits on several cards. */
export function DecideAll(props: { calls: ToolCallJson[]; onError: (message: string) => void }) {
  const [sending, setSending] = useState(false);
  if (props.calls.length < 2) return null;
  async function decideAll(decision: 'approve' | 'deny') {
    setSending(true);
    try {
      for (const call of props.calls) {
        const { tool_call: decided } = await apiFetch<{ tool_call: ToolCallJson }>(`/api/tool-calls/${call.id}/decision`, { method: 'POST', body: { decision, session_id: call.session_id, args_hash: call.args_hash } });
      }
    } catch (caught) {
      props.onError(errorText(caught));
    } finally {
      setSending(false);
    }
  }
  return (
    <li className="flex gap-2">
      <button type="button" className="btn btn-primary" disabled={sending} onClick={() => void decideAll('approve')}>
        Approve all {props.calls.length}
      </button>
      <button type="button" className="btn" disabled={sending} onClick={() => void decideAll('deny')}>
        Deny all
      </button>
    </li>
  );
}
