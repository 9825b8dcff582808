'use client';

import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import type { TaskJson } from '@/lib/store/tasks-repository';
import { errorText } from '@/lib/errors/error-text';

const statusStyles: Record<TaskJson['status'], string> = {
  pending: 'bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300',
  running: 'bg-indigo-100 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-300',
  blocked: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200',
  completed: 'bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-300',
  failed: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  cancelled: 'bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-400',
};

const planMarks = { pending: '○', in_progress: '▶', done: '✓', skipped: '–' } as const;

function elapsed(task: TaskJson, now: number): string {
  if (!task.started_at) return '—';
  const end = task.finished_at ? Date.parse(task.finished_at) : now;
  const seconds = Math.max(0, Math.round((end - Date.parse(task.started_at)) / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

function usageLine(task: TaskJson): string {
  const tokens = task.usage.input_tokens + task.usage.output_tokens;
  const limits = task.constraints;
  const parts = [
    `${tokens.toLocaleString()}${limits.max_tokens ? ` / ${limits.max_tokens.toLocaleString()}` : ''} tokens`,
    `$${task.usage.cost_usd.toFixed(4)}${limits.max_cost_usd ? ` / $${limits.max_cost_usd}` : ''}${task.usage.cost_unknown ? ' (some calls unpriced)' : ''}`,
  ];
  return parts.join(' · ');
}

const FINAL = new Set<TaskJson['status']>(['completed', 'failed', 'cancelled']);

/** One task: goal, status, plan, progress against its limits, outcome, and what the person can do now; the tasks it delegated nested inside. */
function TaskCard(props: { task: TaskJson; all: TaskJson[]; now: number; onError: (message: string) => void }) {
  const { task } = props;
  const children = props.all.filter((child) => child.parent_task_id === task.id).sort((a, b) => a.created_at.localeCompare(b.created_at));
  const [answer, setAnswer] = useState('');
  const [sending, setSending] = useState(false);
  const act = async (path: string, body?: unknown) => {
    setSending(true);
    try {
      await apiFetch(`/api/tasks/${task.id}/${path}`, { method: 'POST', body: body ?? {} });
      setAnswer('');
    } catch (caught) {
      props.onError(errorText(caught));
    } finally {
      setSending(false);
    }
  };
  const blocked = task.blocked_on;
  return (
    <section
      aria-label={task.specialist ? `Delegated task ${task.goal}` : `Task ${task.goal}`}
      className={`space-y-2 rounded-lg border p-3 text-sm ${task.specialist ? 'border-indigo-200 bg-indigo-50/40 dark:border-indigo-900 dark:bg-indigo-950/20' : 'border-zinc-200 dark:border-zinc-700'}`}
    >
      <header className="flex flex-wrap items-center gap-2">
        {task.specialist && (
          <a className="text-xs font-semibold text-indigo-700 underline dark:text-indigo-300" href={`/sessions/${task.session_id}`} data-testid="task-specialist">
            {task.specialist}
          </a>
        )}
        <span className="font-medium">{task.goal}</span>
        <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${statusStyles[task.status]}`} data-testid="task-status">
          {task.status}
        </span>
        <span className="text-xs text-zinc-500" data-testid="task-progress">
          step {task.steps} / {task.constraints.max_steps} · {usageLine(task)} · {elapsed(task, props.now)}
        </span>
        <span className="ml-auto flex gap-2">
          <a className="btn py-0.5 text-xs" href={`/api/tasks/${task.id}/trace`} download>
            Trace
          </a>
          {!FINAL.has(task.status) && (
            <button type="button" className="btn py-0.5 text-xs" disabled={sending} onClick={() => void act('cancel')}>
              Cancel
            </button>
          )}
        </span>
      </header>
      {task.plan.length > 0 && (
        <ol aria-label="Plan" className="space-y-0.5">
          {task.plan.map((item, index) => (
            <li key={index} className={item.status === 'in_progress' ? 'font-medium' : item.status === 'done' ? 'text-zinc-500' : ''}>
              <span aria-hidden className="mr-1 inline-block w-4 text-center">
                {planMarks[item.status]}
              </span>
              {item.title} <span className="sr-only">({item.status})</span>
            </li>
          ))}
        </ol>
      )}
      {blocked?.kind === 'approval' && <p className="text-amber-800 dark:text-amber-300">Waiting for your decision on a tool call in the chat.</p>}
      {task.status === 'blocked' && task.specialist && blocked?.kind === 'question' && <p className="text-amber-800 dark:text-amber-300">Asks: {blocked.question} (answer it above, on the task that delegated this)</p>}
      {task.status === 'blocked' && !task.specialist && blocked && blocked.kind !== 'approval' && (
        <form
          className="space-y-2"
          onSubmit={(event) => {
            event.preventDefault();
            void act('resume', { input: answer });
          }}
        >
          <p className="text-amber-800 dark:text-amber-300">{blocked.kind === 'question' ? blocked.question : 'The task is paused until you resume it.'}</p>
          <label className="block">
            <span className="text-xs text-zinc-500">{blocked.kind === 'question' ? 'Your answer' : 'Anything to add (optional)'}</span>
            <textarea className="field" rows={2} value={answer} onChange={(event) => setAnswer(event.target.value)} />
          </label>
          <button type="submit" className="btn btn-primary" disabled={sending || (blocked.kind === 'question' && !answer.trim())}>
            {blocked.kind === 'question' ? 'Answer' : 'Resume'}
          </button>
        </form>
      )}
      {task.result && (
        <p>
          <span className="font-medium">Result: </span>
          <span data-testid="task-result">{task.result}</span>
        </p>
      )}
      {task.error && <p className="text-red-700 dark:text-red-400">Ended: {task.error}</p>}
      {(task.notes?.length ?? 0) > 0 && (
        <ul aria-label="Task notes" className="text-xs text-zinc-500">
          {task.notes!.map((note, index) => (
            <li key={index}>{note}</li>
          ))}
        </ul>
      )}
      {children.length > 0 && (
        <div aria-label="Delegated" className="space-y-2 border-l-2 border-indigo-200 pl-3 dark:border-indigo-900">
          {children.map((child) => (
            <TaskCard key={child.id} task={child} all={props.all} now={props.now} onError={props.onError} />
          ))}
        </div>
      )}
    </section>
  );
}

function NewTaskForm(props: { sessionId: string; onDone: () => void; onError: (message: string) => void }) {
  const [goal, setGoal] = useState('');
  const [context, setContext] = useState('');
  const [maxSteps, setMaxSteps] = useState('20');
  const [timeoutMin, setTimeoutMin] = useState('30');
  const [maxTokens, setMaxTokens] = useState('');
  const [maxCost, setMaxCost] = useState('');
  const [sending, setSending] = useState(false);
  async function submit() {
    setSending(true);
    try {
      await apiFetch(`/api/sessions/${props.sessionId}/tasks`, {
        method: 'POST',
        body: {
          goal,
          ...(context.trim() && { context }),
          constraints: {
            max_steps: Number(maxSteps),
            timeout_s: Math.round(Number(timeoutMin) * 60),
            ...(maxTokens && { max_tokens: Number(maxTokens) }),
            ...(maxCost && { max_cost_usd: Number(maxCost) }),
          },
        },
      });
      props.onDone();
    } catch (caught) {
      props.onError(errorText(caught));
    } finally {
      setSending(false);
    }
  }
  return (
    <form
      aria-label="New task"
      className="grid gap-2 rounded-lg border border-zinc-200 p-3 text-sm sm:grid-cols-4 dark:border-zinc-700"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <label className="block sm:col-span-4">
        <span className="mb-1 block font-medium">Goal</span>
        <textarea className="field" rows={2} value={goal} onChange={(event) => setGoal(event.target.value)} placeholder="What should the agent get done?" />
      </label>
      <label className="block sm:col-span-4">
        <span className="mb-1 block text-xs text-zinc-500">Context (optional)</span>
        <textarea className="field" rows={2} value={context} onChange={(event) => setContext(event.target.value)} />
      </label>
      <label className="block">
        <span className="mb-1 block text-xs text-zinc-500">Max steps</span>
        <input className="field" type="number" min={1} max={200} value={maxSteps} onChange={(event) => setMaxSteps(event.target.value)} />
      </label>
      <label className="block">
        <span className="mb-1 block text-xs text-zinc-500">Time limit (minutes)</span>
        <input className="field" type="number" min={1} value={timeoutMin} onChange={(event) => setTimeoutMin(event.target.value)} />
      </label>
      <label className="block">
        <span className="mb-1 block text-xs text-zinc-500">Max tokens (optional)</span>
        <input className="field" type="number" min={100} value={maxTokens} onChange={(event) => setMaxTokens(event.target.value)} />
      </label>
      <label className="block">
        <span className="mb-1 block text-xs text-zinc-500">Max cost, USD (optional)</span>
        <input className="field" type="number" min={0} step="0.01" value={maxCost} onChange={(event) => setMaxCost(event.target.value)} />
      </label>
      <div className="flex gap-2 sm:col-span-4">
        <button type="submit" className="btn btn-primary" disabled={sending || !goal.trim()}>
          Start task
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          Close
        </button>
      </div>
    </form>
  );
}

/** The session's tasks: a New task form, the ones under way as cards, the finished ones below. */
export function TasksPanel(props: { sessionId: string; tasks: Record<string, TaskJson>; onError: (message: string) => void }) {
  const [creating, setCreating] = useState(false);
  const [now, setNow] = useState(() => Date.now());
  // The session's own tasks; the ones they delegated are nested in their cards.
  const every = Object.values(props.tasks);
  const all = every.filter((task) => task.session_id === props.sessionId).sort((a, b) => b.created_at.localeCompare(a.created_at));
  const open = all.filter((task) => !FINAL.has(task.status));
  const finished = all.filter((task) => FINAL.has(task.status));
  const ticking = open.some((task) => task.status === 'running' || task.status === 'blocked');
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [ticking]);
  return (
    <section aria-labelledby="tasks-heading" className="space-y-2">
      <div className="flex items-center gap-3">
        <h2 id="tasks-heading" className="font-semibold">
          Tasks
        </h2>
        {!creating && (
          <button type="button" className="btn py-0.5 text-sm" onClick={() => setCreating(true)}>
            New task
          </button>
        )}
        {all.length === 0 && !creating && <span className="text-xs text-zinc-500">A goal the agent pursues on its own, step by step, within the limits you set.</span>}
      </div>
      {creating && <NewTaskForm sessionId={props.sessionId} onDone={() => setCreating(false)} onError={props.onError} />}
      {open.map((task) => (
        <TaskCard key={task.id} task={task} all={every} now={now} onError={props.onError} />
      ))}
      {finished.length > 0 && (
        <details open={open.length === 0}>
          <summary className="cursor-pointer text-sm text-zinc-600 dark:text-zinc-400">History ({finished.length})</summary>
          <div className="mt-2 space-y-2">
            {finished.map((task) => (
              <TaskCard key={task.id} task={task} all={every} now={now} onError={props.onError} />
            ))}
          </div>
        </details>
      )}
    </section>
  );
}
