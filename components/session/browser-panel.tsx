'use client';

import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { apiFetch } from '@/components/api-client';
import type { BrowserFrameEvent, BrowserStateEvent } from '@/lib/realtime/socket-events';
import type { BrowserListener } from './use-session-socket';
import { errorText } from '@/lib/errors/error-text';

type BrowserState = Omit<BrowserStateEvent, 'sessionId'>;

/** Keys sent as keys while the person drives; everything printable is sent as text. */
const KEYS = new Set(['Enter', 'Backspace', 'Tab', 'Escape', 'Delete', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

/**
 * The agent's browser, live (issue 45 §5): frames of the active tab arrive only while this panel is
 * open; "Take over" lets the person click and type in it — to sign in, solve a captcha, accept
 * cookies — while the agent's browser actions wait; "Give back" hands it back. What the person
 * types goes to the page only: never to the model, the logs or an event.
 */
export function BrowserPanel(props: { sessionId: string; watchBrowser: (listener: BrowserListener | null) => void; onError: (message: string | null) => void }) {
  const [open, setOpen] = useState(false);
  const [state, setState] = useState<BrowserState | null>(null);
  const [frame, setFrame] = useState<BrowserFrameEvent | null>(null);
  const [busy, setBusy] = useState(false);
  const image = useRef<HTMLImageElement | null>(null);
  const { sessionId, watchBrowser, onError } = props;

  useEffect(() => {
    if (!open) return;
    watchBrowser({
      frame: (event) => event.sessionId === sessionId && setFrame(event),
      state: (event) => event.sessionId === sessionId && setState(event),
    });
    return () => watchBrowser(null);
  }, [open, sessionId, watchBrowser]);

  async function takeOver(action: 'take' | 'give') {
    setBusy(true);
    try {
      setState((await apiFetch<{ browser: BrowserState }>(`/api/sessions/${sessionId}/browser`, { method: 'POST', body: { action } })).browser);
      onError(null);
    } catch (caught) {
      onError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  // One after another: keys arrive in the order they were typed.
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  function send(body: Record<string, unknown>) {
    queue.current = queue.current.then(() => apiFetch(`/api/sessions/${sessionId}/browser/input`, { method: 'POST', body }).catch((caught: Error) => onError(caught.message)));
  }

  function click(event: MouseEvent<HTMLImageElement>) {
    if (!state?.taken_over || !frame || !image.current) return;
    const box = image.current.getBoundingClientRect();
    send({ type: 'click', x: Math.round(((event.clientX - box.left) * frame.width) / box.width), y: Math.round(((event.clientY - box.top) * frame.height) / box.height) });
  }

  function key(event: KeyboardEvent<HTMLDivElement>) {
    if (!state?.taken_over) return;
    if (KEYS.has(event.key)) send({ type: 'key', key: event.key });
    else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey) send({ type: 'text', text: event.key });
    else return;
    event.preventDefault();
  }

  return (
    <details className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800" onToggle={(event) => setOpen((event.target as HTMLDetailsElement).open)}>
      <summary className="cursor-pointer font-semibold">Browser{state?.open ? `: ${state.url ?? 'a blank tab'}` : ''}</summary>
      <div className="mt-3 space-y-2">
        {!state?.open ? (
          <p className="text-sm text-zinc-500">The agent&apos;s browser is not open. It opens with the first page the agent reads (a graph with a Browser node).</p>
        ) : (
          <>
            <div className="flex flex-wrap items-center gap-3 text-sm">
              <span>
                {state.tabs} tab{state.tabs === 1 ? '' : 's'} · {state.taken_over ? 'You have the browser: the agent waits.' : 'The agent has the browser.'}
              </span>
              {state.taken_over ? (
                <button type="button" className="btn" disabled={busy} onClick={() => void takeOver('give')}>
                  Give back
                </button>
              ) : (
                <button type="button" className="btn" disabled={busy} onClick={() => void takeOver('take')}>
                  Take over
                </button>
              )}
            </div>
            <div tabIndex={0} role="application" aria-label="The agent's browser" onKeyDown={key} className={`overflow-hidden rounded border ${state.taken_over ? 'border-blue-500 outline-none ring-2 ring-blue-300' : 'border-zinc-300 dark:border-zinc-700'}`}>
              {frame ? (
                // eslint-disable-next-line @next/next/no-img-element -- a live JPEG frame, not an asset
                <img ref={image} alt={`The page at ${frame.url}`} src={`data:image/jpeg;base64,${frame.data}`} onClick={click} className={`block w-full ${state.taken_over ? 'cursor-pointer' : ''}`} />
              ) : (
                <p className="p-4 text-sm text-zinc-500">Waiting for the first frame…</p>
              )}
            </div>
            {state.taken_over && <p className="text-xs text-zinc-500">Click in the page and type: your keys go to the page only, never to the agent or the logs.</p>}
          </>
        )}
      </div>
    </details>
  );
}
