// Slack's AI side panel, used for the visible mind (issue 62 §5), on Bolt's `Assistant`: a thread
// started there gets the persona's suggested prompts; a person's message gives the thread its title
// (the first one) and, while the Internal Dialog works, a status whose rotating loading messages
// are the Subconscious's current mood and criteria, in words. The message itself goes the way of
// every DM (pairing, the person's own conversation); the reply streams into the thread
// (slack-stream.ts). A stranger's thread shows nothing of any mind.
import { Assistant } from '@slack/bolt';
import type { ChatMind } from './channel-types';

/** Slack shows up to ten loading messages; each kept short. */
const MAX_LOADING = 10;
const LOADING_CHARS = 100;

export interface AssistantMessage {
  user?: string;
  bot_id?: string;
  text?: string;
  thread_ts?: string;
}

/** The mood and criteria as the status's rotating lines. */
export function loadingMessages(mind: ChatMind): string[] {
  const criteria = (mind.criteria ?? '')
    .split(/\n|;\s+/)
    .map((line) => line.replace(/^[-*•\d.)\s]+/, '').trim())
    .filter(Boolean);
  const lines = [...(mind.mood ? [`Mood: ${mind.mood.trim()}`] : []), ...criteria.map((line) => `Weighing: ${line}`)];
  return (lines.length > 0 ? lines : [`${mind.persona} is thinking…`]).map((line) => (line.length > LOADING_CHARS ? `${line.slice(0, LOADING_CHARS - 1)}…` : line)).slice(0, MAX_LOADING);
}

export function slackAssistant(deps: { mind(sender: string): Promise<ChatMind | null>; message(event: AssistantMessage, retryNum?: number): Promise<void>; warn(what: string, error: unknown): void }): Assistant {
  const untitled = new Set<string>();
  return new Assistant({
    // The thread's context (the channel the person looks at) is not used: nothing kept or fetched.
    threadContextStore: { get: async () => ({}), save: async () => {} },
    threadContextChanged: async () => {},
    threadStarted: async ({ event, setSuggestedPrompts }) => {
      const thread = event.assistant_thread;
      if (untitled.size > 1_000) untitled.clear();
      untitled.add(thread.thread_ts);
      const mind = await deps.mind(`slack:${thread.user_id}`);
      if (mind) await setSuggestedPrompts({ title: `Ask ${mind.persona}`, prompts: mind.prompts }).catch((error: unknown) => deps.warn('suggested prompts not set', error));
    },
    userMessage: async ({ message, context, setTitle, setStatus }) => {
      const event = message as AssistantMessage;
      if (!event.user || event.bot_id) return;
      // The title and the status go out beside the message, not before it: no Slack round trip on the
      // way to the model (the status request still leaves first, ahead of the reply's first words).
      const beside: Promise<unknown>[] = [];
      if (event.thread_ts && untitled.delete(event.thread_ts) && event.text) beside.push(setTitle(event.text.slice(0, 80)).catch((error: unknown) => deps.warn('title not set', error)));
      const mind = await deps.mind(`slack:${event.user}`);
      if (mind) beside.push(setStatus({ status: 'is thinking…', loading_messages: loadingMessages(mind) }).catch((error: unknown) => deps.warn('status not set', error)));
      await deps.message(event, context.retryNum);
      await Promise.all(beside);
    },
  });
}
