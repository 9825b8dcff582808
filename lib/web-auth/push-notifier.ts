// What reaches a person's phone (issue 61 §5): a card they may decide (the rights authority says
// who), and the agent's unprompted words in their conversations — each only while no page of theirs
// is open (there they see it already). The notification names the session and opens it; a card's
// says which tool waits, the words are the agent's own in that person's conversation. In a person's
// quiet hours (issue 74 §5) the words wait for their end; a card goes at once.
import { realClock, type Clock } from '@/lib/clock/clock';
import type { EventBus, EventOf, OrchestratorEvent } from '@/lib/mind/events';
import { cardDeciders } from '@/lib/people/rights';
import { quietMinutesLeft } from '@/lib/config/quiet-hours';
import { findPerson, sessionPeople } from '@/lib/store/people-repository';
import { findSession } from '@/lib/store/sessions-repository';
import { pushToPerson, type PushPayload } from './push';
import { errorText } from '@/lib/errors/error-text';

const WORDS_SHOWN = 160;

export interface PushNotifierOptions {
  bus: EventBus;
  /** Whether a page of this person's is open now (a socket of theirs is connected). */
  present: (personId: string) => boolean;
  /** Where a failed delivery is told (a push service down is not the mind's business). */
  report?: (message: string) => void;
  /** When quiet hours end (default the real clock). */
  clock?: Clock;
}

/** Subscribes to the mind's events; returns the function that stops it. */
export function startPushNotifier(options: PushNotifierOptions): () => void {
  const announced = new Set<string>();
  const send = async (people: Iterable<string>, payload: PushPayload) => {
    for (const personId of people) {
      if (options.present(personId)) continue;
      const outcome = await pushToPerson(personId, payload);
      if (outcome.failed.length) options.report?.(`[push] ${outcome.failed.join('; ')}`);
    }
  };
  // Words held for a person's quiet hours: the latest per person and session, sent when they end.
  const clock = options.clock ?? realClock;
  const held = new Map<string, AbortController>();
  const sendWords = async (people: Iterable<string>, payload: PushPayload) => {
    const now: string[] = [];
    for (const personId of people) {
      const wait = quietMinutesLeft((await findPerson(personId))?.limits?.quiet_hours, new Date(clock.now()));
      if (wait === 0) {
        now.push(personId);
        continue;
      }
      const key = `${personId} ${payload.tag}`;
      held.get(key)?.abort();
      const hold = new AbortController();
      held.set(key, hold);
      void clock.sleep(wait * 60_000, hold.signal).then(async () => {
        if (hold.signal.aborted) return;
        held.delete(key);
        await send([personId], payload).catch((error: unknown) => options.report?.(`[push] ${errorText(error)}`));
      });
    }
    await send(now, payload);
  };
  const sessionName = async (sessionId: string) => (await findSession({ id: sessionId }))?.name ?? 'A session';

  const onCard = async (event: EventOf<'tool-call'>) => {
    const call = event.call;
    if (call.status !== 'awaiting_approval' || announced.has(call.id)) return;
    announced.add(call.id);
    if (announced.size > 5000) announced.delete(announced.values().next().value!);
    const deciders = await cardDeciders({ sessionId: event.sessionId, ownerOnly: call.owner_only });
    await send(deciders, { title: `${call.name} waits for your decision`, body: `In “${await sessionName(event.sessionId)}”`, url: `/sessions/${event.sessionId}`, tag: `card-${call.id}` });
  };

  const onWords = async (event: EventOf<'turn-end'>) => {
    if (!event.spontaneous) return;
    const words = event.messages.filter((message) => message.tag === 'ED_agent').map((message) => message.content).join('\n').trim();
    if (!words) return;
    const body = words.length > WORDS_SHOWN ? `${words.slice(0, WORDS_SHOWN - 1)}…` : words;
    await sendWords(await sessionPeople(event.sessionId), { title: await sessionName(event.sessionId), body, url: `/sessions/${event.sessionId}`, tag: `words-${event.sessionId}` });
  };

  const unsubscribe = options.bus.subscribe((event: OrchestratorEvent) => {
    const work = event.type === 'tool-call' ? onCard(event) : event.type === 'turn-end' ? onWords(event) : null;
    work?.catch((error: unknown) => options.report?.(`[push] ${errorText(error)}`));
  });
  return () => {
    unsubscribe();
    for (const hold of held.values()) hold.abort();
    held.clear();
  };
}
