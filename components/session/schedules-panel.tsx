'use client';

import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import type { ScheduleJson } from '@/lib/store/triggers-repository';
import { errorText } from '@/lib/errors/error-text';

interface HookJson {
  id: string;
  name: string;
  url: string;
  secret: string;
  standard_webhooks_secret: string;
  action: { kind: 'message' | 'task'; goal?: string; text?: string };
  enabled: boolean;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

function ScheduleRow(props: { schedule: ScheduleJson; onChanged: () => void; onError: (message: string) => void }) {
  const { schedule } = props;
  const [editing, setEditing] = useState(false);
  const [expression, setExpression] = useState(schedule.expression);
  const [timeZone, setTimeZone] = useState(schedule.time_zone);
  const [text, setText] = useState(schedule.action.kind === 'message' ? schedule.action.text : schedule.action.goal);
  const act = async (init: { method: string; body?: unknown }) => {
    try {
      await apiFetch(`/api/schedules/${schedule.id}`, init);
      props.onChanged();
    } catch (caught) {
      props.onError(errorText(caught));
    }
  };
  const what = schedule.action.kind === 'message' ? `message: ${schedule.action.text}` : `task: ${schedule.action.goal}`;
  return (
    <li className="space-y-1 rounded border border-zinc-200 p-2 text-sm dark:border-zinc-700" data-testid="schedule">
      <div className="flex flex-wrap items-center gap-2">
        <strong>{schedule.name}</strong>
        <span className="rounded bg-zinc-100 px-1.5 text-xs dark:bg-zinc-800">{schedule.kind === 'cron' ? `cron ${schedule.expression}` : `at ${schedule.expression}`}</span>
        <span className="text-xs text-zinc-500">{schedule.time_zone}</span>
        <span className="text-xs text-zinc-500">by {schedule.created_by === 'agent' ? 'the agent' : 'you'}</span>
        <span className="text-xs font-medium">{schedule.state}</span>
        <span className="ml-auto flex gap-1">
          {schedule.state === 'active' && (
            <button type="button" className="btn py-0.5 text-xs" onClick={() => void act({ method: 'PATCH', body: { state: 'paused' } })}>
              Pause
            </button>
          )}
          {schedule.state === 'paused' && (
            <button type="button" className="btn py-0.5 text-xs" onClick={() => void act({ method: 'PATCH', body: { state: 'active' } })}>
              Resume
            </button>
          )}
          <button type="button" className="btn py-0.5 text-xs" onClick={() => setEditing(!editing)}>
            Edit
          </button>
          <button type="button" className="btn py-0.5 text-xs" onClick={() => void act({ method: 'DELETE' })}>
            Delete
          </button>
        </span>
      </div>
      {editing && (
        <form
          aria-label={`Edit ${schedule.name}`}
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            const action = schedule.action.kind === 'message' ? { kind: 'message', text } : { ...schedule.action, goal: text };
            void act({ method: 'PATCH', body: { expression, time_zone: timeZone, action } }).then(() => setEditing(false));
          }}
        >
          <label className="flex flex-col text-xs">
            {schedule.kind === 'once' ? 'Time' : 'Cron expression'}
            <input className="field" value={expression} onChange={(event) => setExpression(event.target.value)} />
          </label>
          <label className="flex flex-col text-xs">
            Time zone
            <input className="field" value={timeZone} onChange={(event) => setTimeZone(event.target.value)} />
          </label>
          <label className="flex flex-1 flex-col text-xs">
            {schedule.action.kind === 'message' ? 'Message' : 'Goal'}
            <input className="field" value={text} onChange={(event) => setText(event.target.value)} />
          </label>
          <button type="submit" className="btn btn-primary py-0.5 text-xs">
            Save
          </button>
        </form>
      )}
      <p className="text-xs text-zinc-600 dark:text-zinc-400">{what}</p>
      <p className="text-xs text-zinc-500">
        next {when(schedule.next_fire_at)} · last {when(schedule.last_fire_at)}
        {schedule.last_result && ` — ${schedule.last_result}`}
      </p>
    </li>
  );
}

function NewSchedule(props: { sessionId: string; onDone: () => void; onError: (message: string) => void }) {
  const [kind, setKind] = useState<'once' | 'cron'>('once');
  const [expression, setExpression] = useState('');
  const [timeZone, setTimeZone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [actionKind, setActionKind] = useState<'message' | 'task'>('message');
  const [text, setText] = useState('');
  const [catchUp, setCatchUp] = useState<'once' | 'skip'>('once');
  async function submit() {
    try {
      await apiFetch(`/api/sessions/${props.sessionId}/schedules`, {
        method: 'POST',
        body: { kind, expression, time_zone: timeZone, catch_up: catchUp, action: actionKind === 'message' ? { kind: 'message', text } : { kind: 'task', goal: text } },
      });
      props.onDone();
    } catch (caught) {
      props.onError(errorText(caught));
    }
  }
  return (
    <form
      aria-label="New schedule"
      className="grid gap-2 rounded border border-zinc-200 p-3 text-sm sm:grid-cols-4 dark:border-zinc-700"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <label className="flex flex-col text-xs">
        When
        <select className="field" value={kind} onChange={(event) => setKind(event.target.value as 'once' | 'cron')}>
          <option value="once">once</option>
          <option value="cron">repeating (cron)</option>
        </select>
      </label>
      <label className="flex flex-col text-xs sm:col-span-2">
        {kind === 'once' ? 'Time' : 'Cron expression'}
        <input className="field" value={expression} onChange={(event) => setExpression(event.target.value)} placeholder={kind === 'once' ? '2026-12-01 09:00' : '0 8 * * 1-5 (weekdays at 8:00)'} />
      </label>
      <label className="flex flex-col text-xs">
        Time zone
        <input className="field" value={timeZone} onChange={(event) => setTimeZone(event.target.value)} />
      </label>
      <label className="flex flex-col text-xs">
        Then
        <select className="field" value={actionKind} onChange={(event) => setActionKind(event.target.value as 'message' | 'task')}>
          <option value="message">send the mind a message</option>
          <option value="task">start a task</option>
        </select>
      </label>
      <label className="flex flex-col text-xs sm:col-span-2">
        {actionKind === 'message' ? 'Message' : 'Goal'}
        <input className="field" value={text} onChange={(event) => setText(event.target.value)} />
      </label>
      <label className="flex flex-col text-xs">
        After downtime
        <select className="field" value={catchUp} onChange={(event) => setCatchUp(event.target.value as 'once' | 'skip')}>
          <option value="once">run once for missed slots</option>
          <option value="skip">skip missed slots</option>
        </select>
      </label>
      <div className="flex gap-2 sm:col-span-4">
        <button type="submit" className="btn btn-primary" disabled={!expression.trim() || !text.trim()}>
          Add schedule
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          Close
        </button>
      </div>
    </form>
  );
}

/** The session's schedules and webhooks: what wakes its mind at a time or on a call. */
export function SchedulesPanel(props: { sessionId: string; live: Record<string, ScheduleJson>; onError: (message: string) => void }) {
  const [schedules, setSchedules] = useState<ScheduleJson[]>([]);
  const [hooks, setHooks] = useState<HookJson[]>([]);
  const [creating, setCreating] = useState(false);
  const [newHook, setNewHook] = useState<HookJson | null>(null);
  const { sessionId, onError } = props;
  const load = useCallback(async () => {
    try {
      setSchedules((await apiFetch<{ schedules: ScheduleJson[] }>(`/api/sessions/${sessionId}/schedules`)).schedules);
      setHooks((await apiFetch<{ hooks: HookJson[] }>(`/api/sessions/${sessionId}/hooks`)).hooks);
    } catch (caught) {
      onError(errorText(caught));
    }
  }, [sessionId, onError]);
  const liveCount = Object.keys(props.live).length;
  const liveKey = Object.values(props.live).map((schedule) => `${schedule.id}:${schedule.last_fire_at}:${schedule.state}`).join();
  useEffect(() => {
    void load();
  }, [load, liveCount, liveKey]);

  async function addHook() {
    const name = window.prompt('Name of the webhook (e.g. build server)');
    if (!name) return;
    try {
      setNewHook((await apiFetch<{ hook: HookJson }>(`/api/sessions/${sessionId}/hooks`, { method: 'POST', body: { name } })).hook);
      await load();
    } catch (caught) {
      onError(errorText(caught));
    }
  }

  return (
    <section aria-labelledby="schedules-heading" className="space-y-2">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="schedules-heading" className="font-semibold">
          Schedules
        </h2>
        {!creating && (
          <button type="button" className="btn py-0.5 text-sm" onClick={() => setCreating(true)}>
            New schedule
          </button>
        )}
        <button type="button" className="btn py-0.5 text-sm" onClick={() => void addHook()}>
          New webhook
        </button>
        {schedules.length === 0 && hooks.length === 0 && !creating && <span className="text-xs text-zinc-500">Reminders, recurring jobs and webhooks that wake the mind.</span>}
      </div>
      {creating && (
        <NewSchedule
          sessionId={sessionId}
          onError={onError}
          onDone={() => {
            setCreating(false);
            void load();
          }}
        />
      )}
      <ul className="space-y-2">
        {schedules.map((schedule) => (
          <ScheduleRow key={schedule.id} schedule={schedule} onChanged={() => void load()} onError={onError} />
        ))}
      </ul>
      {newHook && (
        <p role="status" className="rounded border border-amber-300 p-2 text-xs dark:border-amber-700">
          Webhook <strong>{newHook.name}</strong>: POST to <code>{newHook.url}</code> signed with the secret <code data-testid="hook-secret">{newHook.secret}</code> (GitHub-style <code>X-Hub-Signature-256</code> or <code>Authorization: Bearer</code>), or as a Standard Webhooks sender with <code data-testid="hook-standard-secret">{newHook.standard_webhooks_secret}</code> — copy it now, it is not shown again.
        </p>
      )}
      {hooks.length > 0 && (
        <ul className="space-y-1 text-xs" aria-label="Webhooks">
          {hooks.map((hook) => (
            <li key={hook.id} className="flex flex-wrap items-center gap-2">
              <strong>{hook.name}</strong> <code>{hook.url}</code> <span className="text-zinc-500">secret {hook.secret}</span>
              <span className="text-zinc-500">{hook.enabled ? 'enabled' : 'disabled'}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
