'use client';

// While the session's tab is hidden, what waits for the person raises a system notification
// (permission asked on a click, never on load) and counts on the tab's title: the agent speaking
// on its own, a card waiting, a task finished or blocked. Clicking the notification focuses the tab.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OrchestratorEvent } from '@/lib/mind/events';

export interface Notice {
  title: string;
  body: string;
  tag: string;
}

/** What an event asks of a person who is not looking, or null. */
export function noticeFor(event: OrchestratorEvent, sessionName: string): Notice | null {
  // A specialist's task shown here: its question reaches the person as the parent task's.
  if ('task' in event && event.task.session_id !== event.sessionId) return null;
  switch (event.type) {
    case 'turn-end': {
      if (!event.spontaneous) return null;
      const text = event.messages.filter((message) => message.tag === 'ED_agent').map((message) => message.content).join(' ').trim();
      return text ? { title: `${sessionName} says`, body: text.slice(0, 200), tag: `speech-${event.turnId}` } : null;
    }
    case 'tool-call':
      return event.call.status === 'awaiting_approval' ? { title: `${sessionName}: a card waits`, body: `The agent wants to run ${event.call.name}`, tag: `card-${event.call.id}` } : null;
    case 'task.completed':
      return { title: `${sessionName}: task finished`, body: event.task.goal.slice(0, 200), tag: `task-${event.task.id}` };
    case 'task.blocked':
      return {
        title: `${sessionName}: a task waits for you`,
        body: event.task.blocked_on?.kind === 'question' ? event.task.blocked_on.question.slice(0, 200) : event.task.goal.slice(0, 200),
        tag: `task-${event.task.id}-blocked`,
      };
    case 'allowance.notice':
      return { title: `${sessionName}: allowance at ${Math.floor((event.spent / event.limit) * 100)}%`, body: event.message, tag: `allowance-${event.scope}-${event.scope_id}-${event.day}` };
    default:
      return null;
  }
}

export type NotificationPermissionState = 'unsupported' | NotificationPermission;

export function useBackgroundNotices(sessionName: string | null) {
  const [permission, setPermission] = useState<NotificationPermissionState>('unsupported');
  const waiting = useRef(0);
  const name = useRef(sessionName);
  name.current = sessionName;

  useEffect(() => {
    if (typeof Notification !== 'undefined') setPermission(Notification.permission);
    const title = () => document.title.replace(/^\(\d+\) /, '');
    const seen = () => {
      if (document.visibilityState !== 'visible') return;
      waiting.current = 0;
      document.title = title();
    };
    document.addEventListener('visibilitychange', seen);
    return () => {
      document.removeEventListener('visibilitychange', seen);
      document.title = title();
    };
  }, []);

  const onEvent = useCallback((event: OrchestratorEvent) => {
    if (document.visibilityState === 'visible') return;
    const notice = noticeFor(event, name.current ?? 'AgentCSD');
    if (!notice) return;
    waiting.current += 1;
    document.title = `(${waiting.current}) ${document.title.replace(/^\(\d+\) /, '')}`;
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    const shown = new Notification(notice.title, { body: notice.body, tag: notice.tag });
    shown.onclick = () => {
      window.focus();
      shown.close();
    };
  }, []);

  /** Asked from a click only (browsers refuse a prompt on load, and people rightly dislike it). */
  const enable = useCallback(async () => {
    if (typeof Notification === 'undefined') return;
    setPermission(await Notification.requestPermission());
  }, []);

  return { permission, enable, onEvent };
}
