'use client';

import { SettingsLink } from '@/components/settings/settings-link';
import type { ElicitationJson } from '@/lib/mind/elicitation-json';
import type { MessageAttachment } from './composer';
import Link from 'next/link';
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { apiFetch, unlessRefused } from '@/components/api-client';
import { StatusBadge } from '@/components/sessions/session-list';
import type { SessionJson } from '@/components/sessions/session-types';
import { ErrorBanner } from '@/components/ui/error-banner';
import { ModelBanner } from './model-banner';
import { FallbackNotice } from './fallback-notice';
import { OverrideButton } from '@/components/spending/override-button';
import { UntrustedBanner } from './untrusted-banner';
import { BrowserPanel } from './browser-panel';
import type { MindState, OrchestratorEvent } from '@/lib/mind/events';
import type { CallLayer, UsageTotals } from '@/lib/store/mind-repository';
import type { ToolCallJson } from '@/lib/store/tool-calls-repository';
import { ChatPanel } from './chat-panel';
import { ContextViewer } from './context-viewer';
import { InternalPanel } from './internal-panel';
import { TasksPanel } from './tasks-panel';
import { SchedulesPanel } from './schedules-panel';
import type { TaskJson } from '@/lib/store/tasks-repository';
import type { ConsolidationJson } from '@/lib/mind/events';
import { formatTime } from './panel-frame';
import { HourlyTokens } from '@/components/spending/hourly-tokens';
import { initialSessionState, sessionReducer, type HistoryLayer, type HistoryPage } from './session-state';
import { SessionSettings } from './session-settings';
import { SubconsciousPanel } from './subconscious-panel';
import { UsageSummary } from './usage-summary';
import { useSessionSocket, type ConnectionState } from './use-session-socket';
import { LayerTabList, layerTabs, panelId, tabId, useLayerTabs } from './layer-tabs';
import { useBackgroundNotices } from './background-notices';
import { errorText } from '@/lib/errors/error-text';
import { ViewerProvider } from './viewer-context';

const pageSize = 100;
const layers: HistoryLayer[] = ['external', 'internal', 'subconscious'];

function ConnectionIndicator({ state }: { state: ConnectionState }) {
  const colour = state === 'connected' ? 'bg-green-500' : state === 'connecting' ? 'bg-amber-500' : 'bg-red-500';
  return (
    <span role="status" aria-live="polite" className="flex items-center gap-1.5 text-xs text-zinc-500">
      <span aria-hidden className={`h-2 w-2 rounded-full ${colour}`} />
      {state === 'connected' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Disconnected — reconnecting'}
    </span>
  );
}

/** Who a session's conversation belongs to (issue 42). */
interface SessionPersonJson {
  id: string;
  name: string;
  role: 'owner' | 'trusted' | 'guest';
}

function MindLine({ mind, status }: { mind: MindState | null; status: string }) {
  if (status !== 'active') return <span className="text-xs text-zinc-500">The mind is paused: nothing new happens until you resume.</span>;
  if (!mind) return <span className="text-xs text-zinc-500">Starting…</span>;
  const next = mind.nextCycleAt ? ` · next cycle ${formatTime(mind.nextCycleAt)}` : '';
  const busy = mind.turn !== null || mind.cycleRunning;
  return (
    <span className="text-xs text-zinc-500" data-testid="mind-line">
      {mind.turn ? (mind.turn.spontaneous ? 'speaking on its own' : 'replying') : mind.cycleRunning ? 'thinking' : mind.rest ? restWords(mind.rest) : mind.activity}
      {mind.queued > 0 && ` · ${mind.queued} queued`}
      {!busy && !mind.rest && next}
    </span>
  );
}

/** How the mind rests, in a person's words (lib/mind/rest.ts): a rest it chose, a deepening pause, or asleep until something happens. */
function restWords(rest: NonNullable<MindState['rest']>): string {
  const until = rest.until ? formatTime(rest.until) : null;
  if (rest.kind === 'quiet') return `quiet hours until ${until} · waits to say: ${rest.reason ?? ''}`;
  if (rest.kind === 'chosen') return `resting ${until ? `until ${until}` : 'until something happens'}${rest.reason ? ` — it said: ${rest.reason}` : ''}`;
  if (rest.kind === 'deepening') return `resting · next thought ${until}`;
  if (rest.kind === 'dormant') return 'dormant: nothing new for weeks · no calls until something arrives';
  return 'resting until something happens · no calls meanwhile';
}

/** `asPerson`: a signed-in person's own session (issue 61 §3): what the owner alone changes is not shown. */
export function SessionView({ sessionId, asPerson = false }: { sessionId: string; asPerson?: boolean }) {
  const [state, dispatch] = useReducer(sessionReducer, undefined, initialSessionState);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [settingsVersion, setSettingsVersion] = useState(0);
  const loading = useRef(false);
  const [people, setPeople] = useState<SessionPersonJson[]>([]);
  const [wordsPrivate, setWordsPrivate] = useState(false);
  // A phone shows the conversation first (issue 75 §6): the page's actions fold behind "More".
  const [actionsOpen, setActionsOpen] = useState(false);

  const load = useCallback(async () => {
    if (loading.current) return;
    loading.current = true;
    try {
      // A conversation whose words are not this page's to read (issue 61 §6) answers 403 on those: they are left empty.
      const words = <T,>(work: Promise<T>, empty: T) => unlessRefused(work, empty, 403);
      const noPage: HistoryPage = { messages: [], mood_and_criteria: [], next_before: null };
      const [detail, calls, tasks, consolidations, elicitations, ...pages] = await Promise.all([
        apiFetch<{ session: SessionJson; mind: MindState | null; usage: Record<CallLayer, UsageTotals>; people?: SessionPersonJson[]; words_private?: boolean }>(`/api/sessions/${sessionId}`),
        apiFetch<{ tool_calls: ToolCallJson[] }>(`/api/sessions/${sessionId}/tool-calls`),
        words(apiFetch<{ tasks: TaskJson[] }>(`/api/sessions/${sessionId}/tasks`), { tasks: [] }),
        words(apiFetch<{ consolidations: ConsolidationJson[] }>(`/api/sessions/${sessionId}/consolidations`), { consolidations: [] }),
        apiFetch<{ elicitations: ElicitationJson[] }>(`/api/sessions/${sessionId}/elicitations`),
        ...layers.map((layer) => words(apiFetch<HistoryPage>(`/api/sessions/${sessionId}/history?layer=${layer}&limit=${pageSize}`), noPage)),
      ]);
      dispatch({
        type: 'loaded',
        session: detail.session,
        mind: detail.mind,
        usage: detail.usage,
        pages: { external: pages[0]!, internal: pages[1]!, subconscious: pages[2]! },
        toolCalls: calls.tool_calls,
        tasks: tasks.tasks,
        consolidations: consolidations.consolidations,
        elicitations: elicitations.elicitations,
      });
      setWordsPrivate(detail.words_private === true);
      setPeople(detail.people ?? []);
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      loading.current = false;
    }
  }, [sessionId]);

  const loadEarlier = useCallback(
    async (layer: HistoryLayer) => {
      const before = state.history[layer].nextBefore;
      if (before === null) return;
      try {
        const page = await apiFetch<HistoryPage>(`/api/sessions/${sessionId}/history?layer=${layer}&limit=${pageSize}&before=${before}`);
        dispatch({ type: 'older', layer, page });
      } catch (caught) {
        setError(errorText(caught));
      }
    },
    [sessionId, state.history],
  );

  const notices = useBackgroundNotices(state.session?.name ?? null);
  // A narrow screen shows one layer at a time (issue 50): what each has, to put a dot on the others.
  const tabs = useLayerTabs({
    external: state.history.external.messages.length + (state.streaming ? 1 : 0),
    internal: state.history.internal.messages.length + Object.keys(state.toolCalls).length,
    subconscious: state.history.subconscious.messages.length + Object.keys(state.consolidations).length,
  });
  const notify = notices.onEvent;
  const onEvent = useCallback((event: OrchestratorEvent) => {
    if (event.sessionId !== sessionId) return;
    dispatch({ type: 'event', event });
    notify(event);
  }, [sessionId, notify]);

  const socket = useSessionSocket({
    sessionId,
    onEvent,
    onJoined: (ack) => {
      dispatch({ type: 'joined', bootId: ack.bootId, lastSeq: ack.lastSeq });
      void load();
    },
  });

  // A gap in seq (events missed) or a server restart: re-read everything over REST.
  useEffect(() => {
    if (state.needsResync) void load();
  }, [state.needsResync, load]);

  useEffect(() => {
    void load();
  }, [load]);

  const session = state.session;

  async function toggle() {
    if (!session) return;
    setBusy(true);
    try {
      const action = session.status === 'active' ? 'pause' : 'resume';
      const result = await apiFetch<{ session: SessionJson }>(`/api/sessions/${sessionId}/${action}`, { method: 'POST' });
      dispatch({ type: 'session', session: result.session });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  async function send(text: string, attachments: MessageAttachment[] = []): Promise<boolean> {
    try {
      const sent = socket.send(text, attachments);
      if (sent) {
        const ack = await sent;
        if (!ack.ok) throw new Error(ack.error.message);
      } else {
        await apiFetch(`/api/sessions/${sessionId}/messages`, { method: 'POST', body: attachments.length ? { text, attachments } : { text } });
      }
      return true;
    } catch (caught) {
      setError(errorText(caught));
      return false;
    }
  }

  async function stopReply() {
    try {
      await apiFetch(`/api/sessions/${sessionId}/stop-turn`, { method: 'POST' });
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  if (state.deleted) return <ErrorBanner message="This session was deleted." />;
  if (!session) return error ? <ErrorBanner message={error} /> : <p aria-busy="true">Loading session…</p>;

  // The mind keeps its latest failure (or retry) until that layer succeeds: a page opened later
  // sees it too.
  const latestError = state.mind?.lastError ?? null;
  // Whose words the owner does not read here (issue 75 §7), named in each layer instead of "nothing yet".
  const wordsOf = wordsPrivate ? people.filter((person) => person.role !== 'owner').map((person) => person.name).join(', ') || 'the people in it' : undefined;
  return (
    <ViewerProvider value={asPerson}>
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <Link href="/" className="text-sm text-indigo-700 hover:underline dark:text-indigo-300">
          ← Sessions
        </Link>
        <h1 className="text-lg font-semibold lg:text-2xl">{session.name}</h1>
        <StatusBadge status={session.status} />
        {state.mind?.degraded && session.status === 'active' && (
          <span className="rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-800 dark:bg-red-950 dark:text-red-300">degraded</span>
        )}
        <span className="text-xs text-zinc-500">persona: {session.persona}</span>
        {people.some((person) => person.role !== 'owner') && (
          <span className="text-xs text-zinc-500" data-testid="session-people">
            with {people.map((person) => `${person.name} (${person.role})`).join(', ')}
          </span>
        )}
        {session.parent_session_id && (
          <Link href={`/sessions/${session.parent_session_id}`} className="text-xs text-indigo-700 hover:underline dark:text-indigo-300" data-testid="specialist-for">
            a specialist's session: back to the session that delegated
          </Link>
        )}
        <MindLine mind={state.mind} status={session.status} />
        <span className="ml-auto">
          <ConnectionIndicator state={socket.state} />
        </span>
        {/* .btn is unlayered CSS and beats a utility's display: the wrapper hides it on a wide screen. */}
        <span className="lg:hidden">
          <button type="button" className="btn" aria-expanded={actionsOpen} aria-controls="session-actions" onClick={() => setActionsOpen((open) => !open)}>
            More
          </button>
        </span>
        <div id="session-actions" className={`${actionsOpen ? 'flex' : 'hidden'} w-full flex-wrap items-center gap-3 lg:flex lg:w-auto`}>
          {(Object.keys(state.tasks).length > 0 || (!asPerson && !wordsPrivate)) && (
            <span className="lg:hidden">
              <a className="btn" href="#tasks-and-schedules" onClick={() => setActionsOpen(false)}>
                Tasks{!asPerson && !wordsPrivate ? ' and schedules' : ''}
              </a>
            </span>
          )}
          {notices.permission === 'default' && (
            <button type="button" className="btn" onClick={() => void notices.enable()} title="A system notification when the agent speaks on its own, a card waits or a task ends while this tab is in the background">
              Notify me
            </button>
          )}
          {notices.permission === 'granted' && <span className="text-xs text-zinc-500">notifications on</span>}
          <Link className="btn" href={`/spending?session=${sessionId}`}>
            Spending
          </Link>
          {!wordsPrivate && (
            <>
              <a className="btn" href={`/api/sessions/${sessionId}/export?format=md`} download>
                Export Markdown
              </a>
              <a className="btn" href={`/api/sessions/${sessionId}/export?format=json`} download>
                Export JSON
              </a>
            </>
          )}
          {!asPerson && (
            <button type="button" className="btn" disabled={busy || session.status === 'closed'} onClick={() => void toggle()}>
              {session.status === 'active' ? 'Pause' : 'Resume'}
            </button>
          )}
        </div>
      </div>
      <ErrorBanner message={error} />
      {wordsPrivate && (
        <p role="status" data-testid="words-private" className="rounded-md border border-indigo-200 bg-indigo-50 px-3 py-2 text-sm text-indigo-900 dark:border-indigo-900 dark:bg-indigo-950 dark:text-indigo-100">
          What is said here stays with {wordsOf}: you see that it exists, what it costs and the cards you decide (<SettingsLink section="people" />).
        </p>
      )}
      {!asPerson && <ModelBanner
        session={session}
        lastError={latestError}
        onSaved={(saved) => {
          dispatch({ type: 'session', session: saved });
          setSettingsVersion((version) => version + 1); // the settings form shows the new model
        }}
      />}
      {!asPerson && <FallbackNotice fallbacks={state.mind?.fallbacks} />}
      {!asPerson && <UntrustedBanner session={session} toolCalls={state.toolCalls} onCleared={(saved) => dispatch({ type: 'session', session: saved })} />}
      {state.mind?.degraded && session.status === 'active' && <ErrorBanner message={state.mind.degraded} />}
      {!asPerson && state.mind?.degraded?.includes("today's allowance") && <OverrideButton onError={setError} />}
      {state.allowanceNotice && (
        <p role="status" data-testid="allowance-notice" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          {state.allowanceNotice} <SettingsLink section="spending" />
        </p>
      )}
      {latestError && !state.mind?.degraded && (
        <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          {latestError.layer === 'internal' ? 'Internal Dialog' : 'Subconscious'} at {formatTime(latestError.at)}: {latestError.message}
        </p>
      )}
      {/* Above the layers on a wide screen; on a phone after them, reached from "More". */}
      <div id="tasks-and-schedules" className="order-last flex flex-col gap-4 empty:hidden lg:order-none">
        <TasksPanel sessionId={sessionId} tasks={state.tasks} onError={setError} />
        {!asPerson && !wordsPrivate && <SchedulesPanel sessionId={sessionId} live={state.schedules} onError={setError} />}
      </div>
      <LayerTabList active={tabs.active} onSelect={tabs.setActive} news={tabs.news} />
      <div className="grid gap-4 lg:grid-cols-3">
        {layerTabs.map(({ key }) => (
          <div key={key} id={panelId(key)} role="tabpanel" aria-labelledby={tabId(key)} className={`min-w-0 ${tabs.active === key ? '' : 'hidden lg:block'}`}>
            {key === 'external' && <ChatPanel state={state} onSend={send} onStop={() => void stopReply()} onLoadEarlier={() => void loadEarlier('external')} onError={setError} wordsOf={wordsOf} />}
            {key === 'internal' && <InternalPanel state={state} onLoadEarlier={() => void loadEarlier('internal')} wordsOf={wordsOf} />}
            {key === 'subconscious' && <SubconsciousPanel state={state} onLoadEarlier={() => void loadEarlier('subconscious')} wordsOf={wordsOf} />}
          </div>
        ))}
      </div>
      <div className="flex flex-wrap items-start gap-6">
        <UsageSummary usage={state.usage} />
        <dl className="flex flex-wrap gap-x-6 gap-y-1 text-xs text-zinc-500">
          <div>
            <dt className="inline">C_model: </dt>
            <dd className="inline">{session.models.c_model.backend} · {session.models.c_model.model}</dd>
          </div>
          <div>
            <dt className="inline">S_model: </dt>
            <dd className="inline">{session.models.s_model.backend} · {session.models.s_model.model}</dd>
          </div>
          <div>
            <dt className="inline">Pacing: </dt>
            <dd className="inline">{session.params.pacing}</dd>
          </div>
          <div>
            <dt className="inline">Summary every: </dt>
            <dd className="inline">{session.params.summary_every_n} cycles</dd>
          </div>
        </dl>
      </div>
      <details className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800" open>
        <summary className="cursor-pointer font-semibold">What this conversation costs, hour by hour</summary>
        <div className="mt-3">
          <HourlyTokens sessionId={sessionId} />
        </div>
      </details>
      {!wordsPrivate && <BrowserPanel sessionId={sessionId} watchBrowser={socket.watchBrowser} onError={setError} />}
      {!wordsPrivate && <ContextViewer sessionId={sessionId} />}
      {!asPerson && <details className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
        <summary className="cursor-pointer font-semibold">Session settings: pacing, spontaneous speech, models</summary>
        <div className="mt-4">
          <SessionSettings key={settingsVersion} session={session} onSaved={(saved) => dispatch({ type: 'session', session: saved })} />
        </div>
      </details>}
    </div>
    </ViewerProvider>
  );
}
