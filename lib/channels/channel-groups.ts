// Group chats (issue 42 §5, ARCHITECTURE §21). A group is joined only when an owner or trusted
// person asks in it (`/join <persona>`); being in a group pairs nobody. The group is a person of
// its own — a guest: its conversation has the guest profile, its cards go to the owner, and it reads
// no member's private sessions or memories (recall by people) — with one session and a binding that
// carries the agent's words back to the group. The agent answers only when addressed (an @mention,
// a reply to it) unless the group is set to `/answer all`; each message reaches the mind with its
// author: the member's person, or "unknown member" — whose words are another party's, so the turn
// that reads them asks before anything goes out.
import { randomUUID } from 'node:crypto';
import { deleteGroup, findGroup, insertGroup, setGroupAnswer, type GroupRecord } from '@/lib/store/channel-groups-repository';
import { deleteBinding, enqueueOutbox, findBinding, listBindings, recordInbound, saveBinding } from '@/lib/store/channels-repository';
import { findPerson, findPersonBySender, personForSender } from '@/lib/store/people-repository';
import { SessionPausedError } from '@/lib/mind/session-errors';
import type { ChannelHost, InboundMessage } from './channel-types';
import { allowanceRefusal, spentRefusal } from './channel-people';
import { steerGroup } from '@/lib/people/rights';
import { errorText } from '@/lib/errors/error-text';

export interface GroupContext {
  channel: { id: string; kind: string };
  host: ChannelHost;
  wake(): void;
}

/** The sender that stands for a group in bindings and identities. */
export const groupSender = (kind: string, groupId: string) => `${kind}-group:${groupId}`;

async function say(context: GroupContext, groupId: string, text: string): Promise<void> {
  await enqueueOutbox({ channelId: context.channel.id, address: groupId, payload: { text } });
  context.wake();
}

/** Whether the sender may steer the agent in groups: an owner or trusted person, paired on this channel. */
async function mayManage(context: GroupContext, sender: string): Promise<boolean> {
  const binding = await findBinding(context.channel.id, sender);
  const person = binding?.personId ? await findPerson(binding.personId) : null;
  return steerGroup(person).verdict === 'allow';
}

async function join(context: GroupContext, message: InboundMessage & { group: NonNullable<InboundMessage['group']> }, persona: string): Promise<void> {
  const { group } = message;
  const sender = groupSender(context.channel.kind, group.id);
  const person = await personForSender({ sender, name: group.title, role: 'guest' });
  let session;
  try {
    session = await context.host.createSession(persona, [person.id], `${persona} · group ${group.title}`.slice(0, 200));
  } catch (error) {
    return say(context, group.id, `Could not join as ${persona}: ${errorText(error)}`);
  }
  await saveBinding({ id: randomUUID(), channelId: context.channel.id, sender, senderName: group.title, address: group.id, sessionId: session.id, persona: null, push: 'all', quietHours: null, personId: person.id });
  await insertGroup({ id: randomUUID(), channelId: context.channel.id, groupId: group.id, title: group.title.slice(0, 200), sessionId: session.id, personId: person.id, answer: 'mentions' });
  await say(context, group.id, `Joined as ${persona}. I answer when addressed (mention me or reply to me); a trusted member can say /answer all, or /leave.`);
}

async function leave(context: GroupContext, group: GroupRecord): Promise<void> {
  for (const binding of await listBindings({ channelId: context.channel.id, sessionId: group.sessionId })) {
    if (binding.personId === group.personId) await deleteBinding(binding.id);
  }
  await deleteGroup(group.id);
}

export async function handleGroupMessage(context: GroupContext, message: InboundMessage & { group: NonNullable<InboundMessage['group']> }): Promise<void> {
  const text = message.text.trim();
  const joined = await findGroup(context.channel.id, message.group.id);
  const command = /^[/!](join|leave|answer)(?:@\w+)?(?:\s+(\S+))?\s*$/i.exec(text);
  if (command) {
    if (!(await mayManage(context, message.sender))) return; // a stranger or a guest steers nothing here
    const [name, argument] = [command[1]!.toLowerCase(), command[2]];
    if (name === 'join') {
      if (joined) return say(context, message.group.id, 'Already here.');
      if (!argument) return say(context, message.group.id, 'Usage: /join <persona>');
      return join(context, message, argument);
    }
    if (!joined) return;
    if (name === 'leave') {
      await leave(context, joined);
      return say(context, message.group.id, 'Left this group.');
    }
    if (argument !== 'all' && argument !== 'mentions') return say(context, message.group.id, 'Usage: /answer all | /answer mentions');
    await setGroupAnswer(joined.id, argument);
    return say(context, message.group.id, argument === 'all' ? 'I answer every message here now.' : 'I answer when addressed now.');
  }
  // Not joined, or not addressed: nothing reaches a model.
  if (!joined || (joined.answer === 'mentions' && !message.group.addressed) || !text) return;
  // A paired member's own daily messages; a member nobody paired speaks on the group's (who joined it).
  const speaker = await findPersonBySender(message.sender);
  const spent = (await allowanceRefusal(speaker?.id ?? joined.personId, new Date())) ?? (await spentRefusal(joined.sessionId, new Date()));
  if (spent) return say(context, message.group.id, spent);
  const author = speaker?.name ?? 'unknown member';
  const binding = await findBinding(context.channel.id, groupSender(context.channel.kind, message.group.id));
  try {
    // A member nobody paired is another party (issue 62): the turn that reads them asks before anything goes out.
    const untrustedSource = speaker ? undefined : `a message from ${message.senderName.slice(0, 100)}, a member of ${message.group.title.slice(0, 100)} nobody paired`;
    const stored = await context.host.sendUserMessage(joined.sessionId, `${author}: ${text}`.slice(0, 20_000), untrustedSource ? { untrustedSource } : {});
    if (binding) await recordInbound({ messageId: stored.id, sessionId: joined.sessionId, bindingId: binding.id });
  } catch (error) {
    if (error instanceof SessionPausedError) return say(context, message.group.id, 'Not delivered: this group’s session is paused.');
    await say(context, message.group.id, `Not delivered: ${errorText(error)}`);
  }
}
