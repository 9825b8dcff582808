// The app's side of `delegate` (issue 34): a specialist's child task runs in a new session of its
// persona, on the parent session's models, linked to the parent session and task; the call waits
// for the child's end (its row, hurried by its events), a cancel of the parent's step cancels the
// child, and the child's session parks when it is done. Asking again for the same work (a
// continued step) finds the child already there. The child's task events and cards are shown in
// the parent's session too.
import { capabilitiesOf } from '@/lib/capabilities/capability-set';
import { readSessionGraph } from '@/lib/capabilities/graph-store';
import { TASK_EVENTS, type EventBus, type TaskEventName } from '@/lib/mind/events';
import { findSession, linkParentSession, type SessionRecord } from '@/lib/store/sessions-repository';
import { FINAL_TASK_STATUSES } from '@/lib/store/task-types';
import { childTasks, findTask, listTasks, taskChain, taskJson, updateTask, type TaskRecord } from '@/lib/store/tasks-repository';
import { markSessionUntrusted, sessionUntrustedSource } from '@/lib/store/untrusted-repository';
import type { DelegationHost } from '@/lib/tasks/delegate-tool';
import type { TaskService } from '@/lib/tasks/task-service';
import type { CreateSessionInput } from './session-changes';
import { sessionPeople } from '@/lib/store/people-repository';

/** How often a parent looks at its child's row besides the events (a child in another process sends none here). */
const WAIT_POLL_MS = 2_000;

export interface DelegationApp {
  createSession(input: CreateSessionInput, options?: { people?: readonly string[] }): Promise<SessionRecord>;
  pauseSession(id: string): Promise<unknown>;
  tasks: () => TaskService;
  bus: EventBus;
}

/**
 * A specialist's session parks when its task ends: its Subconscious would otherwise go on cycling
 * (and spending) for a session nobody talks to. Resumed from its page, it is an ordinary session.
 */
async function parkSpecialist(app: DelegationApp, child: TaskRecord): Promise<void> {
  const session = await findSession({ id: child.sessionId });
  if (session?.status !== 'active') return;
  const unfinished = (await listTasks({ sessionId: child.sessionId })).some((task) => !FINAL_TASK_STATUSES.includes(task.status));
  if (!unfinished) await app.pauseSession(child.sessionId);
}

export function delegationHost(app: DelegationApp): DelegationHost {
  // A child session's task events and tool calls are shown in its parent's session too (the
  // nested task card, the child's cards in the parent's chat), marked with the specialist's name;
  // up the chain when a specialist delegates in turn. Known from the moment the child is started
  // or found again (a continued step after a restart asks for it again).
  const parents = new Map<string, { sessionId: string; specialist: string }>();
  app.bus.subscribe((event) => {
    const parent = parents.get(event.sessionId);
    if (!parent) return;
    if ((TASK_EVENTS as readonly string[]).includes(event.type) && 'task' in event) {
      app.bus.emit(event.type as TaskEventName, parent.sessionId, { task: { ...event.task, specialist: event.task.specialist ?? parent.specialist } });
    } else if (event.type === 'tool-call') app.bus.emit('tool-call', parent.sessionId, { call: event.call });
  });
  const link = (child: TaskRecord, parentSessionId: string, specialist: string) => {
    parents.set(child.sessionId, { sessionId: parentSessionId, specialist });
    return child;
  };
  return {
    specialistsOf: async (sessionId) => {
      const snapshot = await readSessionGraph(sessionId);
      return snapshot ? capabilitiesOf(snapshot.graph).specialists : [];
    },
    chain: taskChain,
    startChild: async ({ parent, specialist, goal, context, constraints }) => {
      // The same work asked again of the same specialist (a step continued after a restart repeats
      // its call): the child already there is waited on, never a second one started.
      for (const child of await childTasks(parent.id)) {
        if (child.goal !== goal || child.status === 'cancelled') continue;
        if ((await findSession({ id: child.sessionId }))?.personaName === specialist) return link(child, parent.sessionId, specialist);
      }
      const parentSession = await findSession({ id: parent.sessionId });
      if (!parentSession) throw new Error(`the session ${parent.sessionId} is gone`);
      const session = await app.createSession({
        persona: specialist,
        name: `${specialist} · for ${parentSession.name}`.slice(0, 120),
        models: { c_model: parentSession.models.c_model, s_model: parentSession.models.s_model },
        params: { pacing: 'adaptive' },
      }, { people: await sessionPeople(parent.sessionId) }); // the specialist works for the parent's people
      await linkParentSession(session.id, parent.sessionId);
      // The brief may carry what the parent read from outside: the child holds it too (§20).
      const read = await sessionUntrustedSource(parent.sessionId);
      if (read) await markSessionUntrusted(session.id, `the brief of a session that read ${read}`);
      parents.set(session.id, { sessionId: parent.sessionId, specialist });
      return app.tasks().submit(session.id, { goal, ...(context !== null && { context }), constraints }, undefined, parent.id);
    },
    waitForEnd: (childTaskId, signal) =>
      new Promise<TaskRecord>((resolve, reject) => {
        let done = false;
        // The question shown on the parent for this child (undefined: not looked yet).
        let shown: string | null | undefined;
        const finish = (task: TaskRecord) => {
          if (done) return;
          done = true;
          unsubscribe();
          clearInterval(poll);
          void parkSpecialist(app, task).catch((error: unknown) => console.error(`[tasks] the specialist's session ${task.sessionId} could not be paused`, error));
          resolve(task);
        };
        // The child's row says where it stands; its events only make the parent look sooner. In a
        // cluster the child may run in another process, whose events this bus never sees: the poll.
        const check = () =>
          findTask(childTaskId).then(async (task) => {
            if (done) return;
            if (!task) {
              done = true;
              unsubscribe();
              clearInterval(poll);
              return reject(new Error(`the task ${childTaskId} is gone`));
            }
            if (FINAL_TASK_STATUSES.includes(task.status)) return finish(task);
            // A child waiting on a question: its parent shows the question (answered there, routed here), then runs on.
            const question = task.status === 'blocked' && task.blockedOn?.kind === 'question' ? task.blockedOn.question : null;
            if (question !== shown) {
              shown = question;
              await mirror(task, question);
            }
          }, reject);
        const unsubscribe = app.bus.subscribe((event) => {
          if ('task' in event && event.task.id === childTaskId && event.sessionId === event.task.session_id) void check();
        });
        const poll = setInterval(() => void check(), WAIT_POLL_MS);
        const mirror = async (child: TaskRecord, question: string | null) => {
          if (!child.parentTaskId) return;
          const specialist = (await findSession({ id: child.sessionId }))?.personaName ?? 'the specialist';
          let parent: TaskRecord | null = null;
          if (question !== null) {
            parent = await updateTask(child.parentTaskId, { status: 'blocked', blockedOn: { kind: 'question', question: `${specialist} asks: ${question}`, child_task_id: childTaskId } }, ['running']);
          } else {
            // Only a block this child put there is lifted.
            const current = await findTask(child.parentTaskId);
            if (current?.blockedOn?.kind === 'question' && current.blockedOn.child_task_id === childTaskId) parent = await updateTask(child.parentTaskId, { status: 'running', blockedOn: null }, ['blocked']);
          }
          if (parent) app.bus.emit(question === null ? 'task.step' : 'task.blocked', parent.sessionId, { task: taskJson(parent) });
        };
        signal.addEventListener(
          'abort',
          () => {
            // The parent stopped: the child stops too, and the call ends with it.
            void app
              .tasks()
              .cancel(childTaskId)
              .then(finish, () => void check());
          },
          { once: true },
        );
        void check();
      }),
  };
}
