'use client';

import { useEffect, useRef, useState } from 'react';
import { TalkButton, useSendAtOnce } from './talk-button';
import { apiFetch } from '@/components/api-client';
import type { McpAttachment } from '@/lib/mcp/mcp-attachments';
import { AttachButton, AttachedFileChips, useAttachedFiles, type AttachedFile } from './file-attach';

/** What a message may carry: MCP resources and prompts, and uploaded files. */
export type MessageAttachment = McpAttachment | { kind: 'file'; id: string };
import type { McpPromptInfo, McpResourceInfo } from '@/lib/mcp/mcp-catalog';
import { errorText } from '@/lib/errors/error-text';

interface Chip {
  attachment: McpAttachment;
  label: string;
  tokens: number | null;
}
type Choice = { kind: 'resource'; server: string; resource: McpResourceInfo } | { kind: 'prompt'; server: string; prompt: McpPromptInfo };

const BUDGET = 8_000;

async function readyServers(): Promise<string[]> {
  const json = await apiFetch<{ servers: { name: string; state: string; enabled: boolean }[] }>('/api/mcp-servers');
  return json.servers.filter((server) => server.enabled && server.state === 'ready').map((server) => server.name);
}

/**
 * The chat's composer. `@` picks a resource of a connected MCP server to attach (its size shown
 * before sending); a leading `/` runs one of their prompts as `/server:prompt arg=value`, its
 * arguments asked in a small form. Enter sends, Shift+Enter is a new line.
 */
export function Composer(props: {
  sessionId: string;
  /** The Internal Dialog's model when it is known not to take images (said before sending). */
  blindModel: string | null;
  paused: boolean;
  streaming: boolean;
  onSend: (text: string, attachments: MessageAttachment[]) => Promise<boolean>;
  onStop: () => void;
  onError: (message: string) => void;
}) {
  const [draft, setDraft] = useState('');
  // A phone has no Shift key to speak of (issue 75 §8): its hint names the Send button.
  const [touch, setTouch] = useState(false);
  useEffect(() => setTouch(window.matchMedia('(pointer: coarse)').matches), []);
  const uploads = useAttachedFiles(props.sessionId, props.onError);
  const [chips, setChips] = useState<Chip[]>([]);
  const [choices, setChoices] = useState<Choice[] | null>(null);
  const [asking, setAsking] = useState<{ server: string; prompt: McpPromptInfo; values: Record<string, string> } | null>(null);
  const [sending, setSending] = useState(false);
  const [sendAtOnce, setSendAtOnce] = useSendAtOnce();
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (!props.paused) input.current?.focus();
  }, [props.paused]);
  const query = /(?:^|\s)@([^\s@]*)$/.exec(draft)?.[1] ?? (draft.startsWith('/') && !draft.includes(' ') ? draft.slice(1) : null);
  const picking = draft.startsWith('/') && !draft.includes(' ') ? 'prompt' : /(?:^|\s)@[^\s@]*$/.test(draft) ? 'resource' : null;

  async function loadChoices(kind: 'resource' | 'prompt') {
    try {
      const servers = await readyServers();
      const lists = await Promise.all(
        servers.map(async (server): Promise<Choice[]> => {
          if (kind === 'resource') {
            const listed = await apiFetch<{ resources: McpResourceInfo[] }>(`/api/mcp-servers/${encodeURIComponent(server)}/resources`).catch(() => ({ resources: [] }));
            return listed.resources.map((resource) => ({ kind: 'resource', server, resource }));
          }
          const listed = await apiFetch<{ prompts: McpPromptInfo[] }>(`/api/mcp-servers/${encodeURIComponent(server)}/prompts`).catch(() => ({ prompts: [] }));
          return listed.prompts.map((prompt) => ({ kind: 'prompt', server, prompt }));
        }),
      );
      setChoices(lists.flat());
    } catch (caught) {
      props.onError(errorText(caught));
    }
  }

  function change(text: string) {
    const wasPicking = picking;
    setDraft(text);
    const next = text.startsWith('/') && !text.includes(' ') ? 'prompt' : /(?:^|\s)@[^\s@]*$/.test(text) ? 'resource' : null;
    if (next && next !== wasPicking) void loadChoices(next);
    if (!next) setChoices(null);
  }

  async function choose(choice: Choice) {
    setChoices(null);
    if (choice.kind === 'prompt') {
      if (choice.prompt.arguments.length === 0) return attachPrompt(choice.server, choice.prompt, {});
      return setAsking({ server: choice.server, prompt: choice.prompt, values: {} });
    }
    setDraft(draft.replace(/@[^\s@]*$/, ''));
    try {
      const preview = await apiFetch<{ tokens: number }>(`/api/mcp-servers/${encodeURIComponent(choice.server)}/resources?uri=${encodeURIComponent(choice.resource.uri)}`);
      setChips((before) => [...before, { attachment: { kind: 'mcp_resource', server: choice.server, uri: choice.resource.uri }, label: `${choice.server}: ${choice.resource.name}`, tokens: preview.tokens }]);
    } catch (caught) {
      props.onError(errorText(caught));
    }
    input.current?.focus();
  }

  function attachPrompt(server: string, prompt: McpPromptInfo, values: Record<string, string>) {
    const args = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
    setAsking(null);
    setDraft(`/${server}:${prompt.name}${Object.entries(args).map(([key, value]) => ` ${key}=${value}`).join('')}`);
    setChips((before) => [...before, { attachment: { kind: 'mcp_prompt', server, name: prompt.name, arguments: args }, label: `/${server}:${prompt.name}`, tokens: null }]);
    input.current?.focus();
  }

  /** Sends the draft (and, from push-to-talk with *Send when heard*, the words and recording just heard). */
  async function send(heard?: { text: string; file: AttachedFile }) {
    const text = heard ? (draft.trim() ? `${draft.trimEnd()} ${heard.text}` : heard.text).trim() : draft.trim();
    const files = heard ? [...uploads.files, heard.file] : uploads.files;
    if ((!text && files.length === 0) || uploads.uploading.length > 0 || sending) return heard && keepHeard(heard);
    setSending(true);
    if (await props.onSend(text, [...chips.map((chip) => chip.attachment), ...files.map((file) => ({ kind: 'file' as const, id: file.id }))])) {
      setDraft('');
      setChips([]);
      uploads.clear();
    } else if (heard) keepHeard(heard); // not sent: the words and the recording wait in the composer
    setSending(false);
    input.current?.focus();
  }

  function keepHeard(heard: { text: string | null; file: AttachedFile }) {
    uploads.keep(heard.file);
    if (heard.text) setDraft((before) => (before.trim() ? `${before.trimEnd()} ${heard.text}` : heard.text!));
  }

  const used = chips.reduce((sum, chip) => sum + (chip.tokens ?? 0), 0);
  const shown = (choices ?? []).filter((choice) => (choice.kind === 'resource' ? `${choice.server} ${choice.resource.name} ${choice.resource.uri}` : `${choice.server}:${choice.prompt.name}`).toLowerCase().includes((query ?? '').toLowerCase())).slice(0, 8);

  return (
    <form
      className={`space-y-2 border-t border-zinc-200 p-3 dark:border-zinc-800 ${dragging ? 'bg-indigo-50 dark:bg-indigo-950' : ''}`}
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
      onDragOver={(event) => {
        if (props.paused || !event.dataTransfer.types.includes('Files')) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        setDragging(false);
        if (props.paused || event.dataTransfer.files.length === 0) return;
        event.preventDefault();
        void uploads.add(event.dataTransfer.files);
      }}
    >
      {picking && shown.length > 0 && (
        <ul className="max-h-48 overflow-auto rounded border border-zinc-200 text-xs dark:border-zinc-700" aria-label={picking === 'prompt' ? 'Prompts' : 'Resources'}>
          {shown.map((choice) => (
            <li key={choice.kind === 'resource' ? `${choice.server} ${choice.resource.uri}` : `${choice.server} ${choice.prompt.name}`}>
              <button type="button" className="w-full px-2 py-1 text-left hover:bg-zinc-100 dark:hover:bg-zinc-800" onClick={() => void choose(choice)}>
                {choice.kind === 'resource' ? (
                  <>
                    <span className="font-medium">{choice.resource.name}</span> <span className="font-mono text-zinc-500">{choice.server} · {choice.resource.uri}</span>
                  </>
                ) : (
                  <>
                    <span className="font-mono font-medium">/{choice.server}:{choice.prompt.name}</span> <span className="text-zinc-500">{choice.prompt.description}</span>
                  </>
                )}
              </button>
            </li>
          ))}
        </ul>
      )}
      {asking && (
        <fieldset className="space-y-1 rounded border border-zinc-200 p-2 text-xs dark:border-zinc-700" aria-label={`Arguments of /${asking.server}:${asking.prompt.name}`}>
          <legend className="font-mono">/{asking.server}:{asking.prompt.name}</legend>
          {asking.prompt.arguments.map((argument) => (
            <label key={argument.name} className="block">
              {argument.name}
              {argument.required ? ' *' : ''} <span className="text-zinc-500">{argument.description}</span>
              <input className="field py-0.5 text-xs" value={asking.values[argument.name] ?? ''} onChange={(event) => setAsking({ ...asking, values: { ...asking.values, [argument.name]: event.target.value } })} />
            </label>
          ))}
          <button type="button" className="btn btn-primary py-0.5 text-xs" disabled={asking.prompt.arguments.some((argument) => argument.required && !asking.values[argument.name])} onClick={() => attachPrompt(asking.server, asking.prompt, asking.values)}>
            Use prompt
          </button>
        </fieldset>
      )}
      {chips.length > 0 && (
        <p className="flex flex-wrap items-center gap-1 text-xs" aria-label="Attachments">
          {chips.map((chip, index) => (
            <span key={index} className="rounded bg-zinc-100 px-2 py-0.5 font-mono dark:bg-zinc-800">
              📎 {chip.label}
              {chip.tokens !== null ? ` · ~${chip.tokens.toLocaleString()} tokens` : ''}{' '}
              <button type="button" aria-label={`Remove ${chip.label}`} onClick={() => setChips(chips.filter((_, other) => other !== index))}>
                ×
              </button>
            </span>
          ))}
          {used > 0 && <span className={used > BUDGET ? 'text-red-700' : 'text-zinc-500'}>{`~${used.toLocaleString()} of ${BUDGET.toLocaleString()} tokens`}</span>}
        </p>
      )}
      <AttachedFileChips files={uploads.files} uploading={uploads.uploading} blindModel={props.blindModel} onRemove={uploads.remove} />
      <label htmlFor="chat-input" className="sr-only">
        Message
      </label>
      <textarea
        id="chat-input"
        ref={input}
        rows={2}
        className="field resize-y"
        placeholder={props.paused ? 'Paused — resume the session to talk' : touch ? 'Write a message (the Send button sends; @ attaches, / runs a prompt)' : 'Write a message (Enter sends, Shift+Enter for a new line; paste or drop files; @ attaches, / runs a prompt)'}
        value={draft}
        disabled={props.paused}
        onChange={(event) => change(event.target.value)}
        onPaste={(event) => {
          const pasted = [...event.clipboardData.files];
          if (pasted.length === 0) return;
          event.preventDefault();
          void uploads.add(pasted);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <div className="flex items-center justify-end gap-2">
        <span className="mr-auto flex flex-wrap gap-2">
          <AttachButton disabled={props.paused} onFiles={(files) => void uploads.add(files)} />
          <TalkButton
            sessionId={props.sessionId}
            disabled={props.paused || sending}
            onHeard={(heard) => {
              if (heard.text && sendAtOnce) void send({ text: heard.text, file: heard.file });
              else keepHeard(heard);
              if (heard.problem) props.onError(heard.problem);
            }}
            onError={props.onError}
          />
          <label className="flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400" title="Push-to-talk sends your words as soon as they are heard, without stopping to edit them (this browser remembers it)">
            <input type="checkbox" checked={sendAtOnce} onChange={(event) => setSendAtOnce(event.target.checked)} />
            Send when heard
          </label>
        </span>
        {props.streaming && (
          <button type="button" className="btn" onClick={props.onStop}>
            Stop reply
          </button>
        )}
        <button type="submit" className="btn btn-primary" disabled={props.paused || sending || uploads.uploading.length > 0 || (!draft.trim() && uploads.files.length === 0)}>
          Send
        </button>
      </div>
    </form>
  );
}
