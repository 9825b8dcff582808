// What a channel does with what arrives (issue 28): a stranger gets one pairing code and nothing
// reaches a model; a paired sender's text becomes a user message of the bound session (the page's
// own path), a reply to a task's question answers it, and a few exact commands steer the session.
// Decisions come only from a signed button (Telegram) or an exact `!approve N` line from the
// bound sender (IRC) — a message whose text merely says "approve" is a message to the mind.
import { randomInt } from 'node:crypto';
import {
  enqueueOutbox,
  findBinding,
  countPairingsSince,
  deleteOpenPairings,
  findOpenPairing,
  findOutbox,
  findOutboxByProviderId,
  insertPairing,
  listOpenPairings,
  recordInbound,
  releaseHeldOutbox,
  type BindingRecord,
  type ChannelRecord,
} from '@/lib/store/channels-repository';
import { findSession, type SessionRecord } from '@/lib/store/sessions-repository';
import { findPerson } from '@/lib/store/people-repository';
import { hasUserMessage } from '@/lib/store/messages-repository';
import { readEnv } from '@/lib/config/env';
import { keepFile, UploadRefusedError } from '@/lib/tools/upload-store';
import { SessionPausedError } from '@/lib/mind/session-errors';
import type { ChannelHost, InboundButton, InboundMessage } from './channel-types';
import { verifyCallback, verifyMailCardCode, type CardDecision } from './card-callback';
import { deliveryAddress, pairingOrigin } from './channel-identity';
import { allowanceRefusal, authored, boundSession, chatActor, openPersonalSession, restingSession, spentRefusal } from './channel-people';
import { handleGroupMessage } from './channel-groups';
import { inSpan } from '@/lib/telemetry/traces';
import { errorText } from '@/lib/errors/error-text';
import { hearVoiceNote, spokenPart } from './voice-notes';
import { voiceCommand } from './voice-replies';
import { startSessionWith } from '@/lib/people/web-reach';
import { messageRefusal } from '@/lib/config/message-text';
import { processSlot } from '@/lib/process/process-state';

export const PAIRING_TTL_MS = 60 * 60 * 1000;
/** How far back a message that may be handed over twice (mail after a crash) is looked for. */
const REPEAT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** Files a message may bring (as many as the page's composer attaches). */
const MAX_FILES = 10;
/**
 * Strangers' codes (issue 41 §5, §10). Open codes per channel: at most 20 — a new stranger's code
 * takes the place of the oldest, so a flood cannot lock out the next real person for an hour. Per
 * origin (an IRC host or account, a Telegram user): at most 2 open, since one IRC connection can
 * change nick at will. Per channel: at most 10 new codes in 10 minutes; past that, nothing.
 */
export const PAIRING_LIMITS = { openPerChannel: 20, openPerOrigin: 2, newPerWindow: 10, windowMs: 10 * 60 * 1000 } as const;
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** Eight characters from 31 (about 40 bits), shown as XXXX-XXXX. */
export function newPairingCode(): string {
  const letters = Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]);
  return `${letters.slice(0, 4).join('')}-${letters.slice(4).join('')}`;
}

export interface InboundCounters {
  received: number;
  ignored: number;
}

export interface InboundContext {
  channel: ChannelRecord;
  host: ChannelHost;
  counters: InboundCounters;
  /** Something was queued in the outbox: send it now. */
  wake(): void;
  now(): Date;
  /** This message is about to reach its session: an answer to it may stream to `address` (reply-streams.ts). */
  expectReply?(sessionId: string, content: string, address: string): void;
}

async function reply(context: InboundContext, address: string, text: string): Promise<void> {
  await enqueueOutbox({ channelId: context.channel.id, address, payload: { text } });
  context.wake();
}

/** A channel's message, as a `receive <channel>` span: the turn answering it, in whichever process, is in its trace. */
export function handleMessage(context: InboundContext, message: InboundMessage): Promise<void> {
  return inSpan({ kind: 'channel', operation: 'receive', channel: context.channel.kind, channelId: context.channel.id }, () => receive(context, message));
}

async function receive(context: InboundContext, message: InboundMessage): Promise<void> {
  context.counters.received++;
  if (message.unverified) return refuseUnverified(context, message, message.unverified);
  // A group chat is the group's own conversation, never a member's (channel-groups.ts).
  if (message.group) return handleGroupMessage(context, { ...message, group: message.group });
  const binding = await findBinding(context.channel.id, message.sender);
  if (!binding) return offerPairing(context, message);
  // The paired identity is here (it wrote): what waited for it goes now.
  if ((await releaseHeldOutbox(context.channel.id, deliveryAddress(binding), context.now())) > 0) context.wake();
  let text = message.text.trim();
  const spoken = spokenPart(message);
  if (!text && !spoken.voice) return;

  const command = /^[/!](status|pause|resume|stop|new|approve|always|deny|answer|voice)(?:@\w+)?(?:\s+([\s\S]*))?$/i.exec(text);
  const bound = await boundSession(context.host, binding);
  if (command && !text.includes('\n')) {
    const name = command[1]!.toLowerCase();
    // A persona's chat whose sessions all rest: /status and /resume reach the latest of them.
    const resting = !bound && (name === 'resume' || name === 'status') ? await restingSession(context.host, binding) : null;
    return runCommand(context, binding, bound ?? resting, name, (command[2] ?? '').trim(), message.commandReplyTo);
  }
  let session = bound;
  if (!session) {
    const resting = await restingSession(context.host, binding);
    if (resting) return reply(context, deliveryAddress(binding), `Not delivered: "${resting.name}" is paused. Send /resume, then write again.`);
    if (!binding.persona || !binding.personId) return reply(context, deliveryAddress(binding), 'No session is bound here now.');
    // A person's first message to a persona opens their own session of it.
    session = await openPersonalSession(context.host, binding, binding.persona);
  }

  // A voice note is its words, the recording kept beside them; one not heard is said, and kept (issue 76 §2).
  let files = spoken.files;
  if (spoken.voice) {
    // Past the conversation's allowance the speech server is not asked either (the person's count of
    // messages is taken once, below, as for a typed one: allowanceRefusal consumes one).
    const spentFirst = await spentRefusal(session.id, context.now());
    if (spentFirst) return reply(context, deliveryAddress(binding), spentFirst);
    const heard = await hearVoiceNote(session.id, spoken.voice);
    const recording = spoken.voice.refused ? [] : [{ name: spoken.voice.name, claimedType: spoken.voice.claimedType, bytes: spoken.voice.bytes }];
    if ('problem' in heard) {
      if (recording.length) await keepFiles(session.id, recording);
      return reply(context, deliveryAddress(binding), `Your voice note was not heard: ${heard.problem}.${recording.length ? ' It is kept with the conversation.' : ''} Write it instead, or send it again.`);
    }
    text = text ? `${heard.text}\n\n${text}` : heard.text;
    files = [...recording, ...files];
  }

  // A reply to a task's question answers it.
  if (message.replyTo) {
    const asked = await findOutboxByProviderId(context.channel.id, deliveryAddress(binding), message.replyTo);
    if (asked?.payload.question && asked.payload.question.sessionId === session.id) {
      const answered = await context.host.answerTask(session.id, text);
      return reply(context, deliveryAddress(binding), answered ? 'Answer passed to the task.' : 'That question is no longer waiting.');
    }
  }
  // The one rule for a message (lib/config/message-text.ts): past it, the chat is told — nothing is cut.
  const refused = messageRefusal(text);
  if (refused) return reply(context, deliveryAddress(binding), `Not sent: ${refused}. Send it in shorter parts, or as a file.`);
  const content = await authored(binding, session.id, text);
  // Handed over again after a crash (its text names it uniquely): the session has it already, and it was counted.
  if (message.mayRepeat && (await hasUserMessage({ sessionId: session.id, content, since: message.repeatSince ?? new Date(context.now().getTime() - REPEAT_WINDOW_MS), prefix: true }))) return;
  const spent = (await allowanceRefusal(binding.personId, context.now())) ?? (await spentRefusal(session.id, context.now()));
  if (spent) return reply(context, deliveryAddress(binding), spent);
  try {
    const kept = files.length ? await keepFiles(session.id, files) : { ids: [], refused: [] };
    const withRefusals = kept.refused.length > 0 ? `${content}\n\nNot kept: ${kept.refused.join('; ')}` : content;
    context.expectReply?.(session.id, withRefusals, deliveryAddress(binding));
    const stored = await context.host.sendUserMessage(session.id, withRefusals, { ...(message.untrustedSource && { untrustedSource: message.untrustedSource }), fileIds: kept.ids });
    await recordInbound({ messageId: stored.id, sessionId: session.id, bindingId: binding.id }); // its answer comes back here
  } catch (error) {
    if (error instanceof SessionPausedError) {
      // An active session no process holds for a moment (its holder died; another takes it over)
      // refuses like a paused one: a provider that hands it over again retries — the mail is not
      // lost; a chat is told to send again (found by the email cluster test: 11 of 12 mails).
      if ((await findSession({ id: session.id }))?.status === 'active') {
        if (message.mayRepeat) throw error;
        return reply(context, deliveryAddress(binding), `Not delivered: "${session.name}" is moving between processes. Write again in a moment.`);
      }
      return reply(context, deliveryAddress(binding), `Not delivered: "${session.name}" is paused. Send /resume, then write again.`);
    }
    // A provider that hands it over again (mail, from its cursor) retries: nothing is lost while a session moves.
    if (message.mayRepeat) throw error;
    await reply(context, deliveryAddress(binding), `Not delivered: ${errorText(error)}`);
  }
}

/** A message's files kept in its session through the upload checks; what cannot be kept, and why. */
async function keepFiles(sessionId: string, files: NonNullable<InboundMessage['files']>): Promise<{ ids: string[]; refused: string[] }> {
  const maxBytes = readEnv().AGENTCSD_UPLOAD_MAX_MB * 1024 * 1024;
  const ids: string[] = [];
  const refused: string[] = [];
  for (const [index, file] of files.entries()) {
    if (index >= MAX_FILES) refused.push(`${file.name}: at most ${MAX_FILES} files a message`);
    else if (file.refused) refused.push(`${file.name}: ${file.refused}`);
    else if (file.bytes.length > maxBytes) refused.push(`${file.name}: larger than ${readEnv().AGENTCSD_UPLOAD_MAX_MB} MB`);
    else {
      try {
        ids.push((await keepFile(sessionId, file)).id);
      } catch (error) {
        if (!(error instanceof UploadRefusedError)) throw error;
        refused.push(error.message);
      }
    }
  }
  return { ids, refused };
}

/** When each unverified address was last told why its mail was not read (bounded; per process). */
const unverifiedNotices = processSlot('channels.unverified-notices', () => new Map<string, number>()).value;
const UNVERIFIED_NOTICE_MS = 24 * 60 * 60 * 1000;

/**
 * A mail whose From is not proven (issue 47): never a conversation, never a pairing — whoever the
 * From names hears once a day why (a person paired there learns that someone wrote as them), and
 * no more notices than pairing codes leave a channel in a window.
 */
async function refuseUnverified(context: InboundContext, message: InboundMessage, reason: string): Promise<void> {
  context.counters.ignored++;
  const now = context.now().getTime();
  const key = `${context.channel.id}:${message.address}`;
  const told = unverifiedNotices.get(key);
  if (told !== undefined && now - told < UNVERIFIED_NOTICE_MS) return;
  const recent = [...unverifiedNotices.entries()].filter(([other, at]) => other.startsWith(`${context.channel.id}:`) && now - at < PAIRING_LIMITS.windowMs).length;
  if (recent >= PAIRING_LIMITS.newPerWindow) return;
  if (unverifiedNotices.size >= 1_000) unverifiedNotices.delete(unverifiedNotices.keys().next().value!);
  unverifiedNotices.set(key, now);
  await reply(context, message.address, `Your mail was not read: ${reason}. This agent reads mail only when the sender's domain signs it (DKIM), so nobody can write in your name; mail sent through your provider's own servers normally is.`);
}

async function offerPairing(context: InboundContext, message: InboundMessage): Promise<void> {
  context.counters.ignored++;
  const now = context.now();
  const channelId = context.channel.id;
  if (await findOpenPairing(channelId, message.sender, now)) return; // one code per stranger, once
  const open = await listOpenPairings(channelId, now);
  const origin = pairingOrigin(message.sender);
  if (open.filter((pairing) => pairingOrigin(pairing.sender) === origin).length >= PAIRING_LIMITS.openPerOrigin) return;
  if ((await countPairingsSince(channelId, new Date(now.getTime() - PAIRING_LIMITS.windowMs))) >= PAIRING_LIMITS.newPerWindow) return;
  // Full: the oldest code waiting gives way (it can be asked for again).
  for (const oldest of open.slice(0, Math.max(0, open.length - PAIRING_LIMITS.openPerChannel + 1))) await deleteOpenPairings(channelId, oldest.code);
  const code = newPairingCode();
  await insertPairing({
    code,
    channelId,
    sender: message.sender,
    senderName: message.senderName.slice(0, 200),
    address: message.address,
    firstText: message.text.slice(0, 200),
    expiresAt: new Date(now.getTime() + PAIRING_TTL_MS),
    createdAt: now,
  });
  await reply(context, message.address, `Pairing code: ${code}\nThis agent talks only to people its owner approved. Ask them to approve this code on the Channels page within an hour.`);
}

async function runCommand(context: InboundContext, binding: BindingRecord, session: SessionRecord | null, name: string, argument: string, replyTo?: string): Promise<void> {
  const { host } = context;
  const to = replyTo ?? deliveryAddress(binding);
  if (name === 'new') {
    const persona = argument || binding.persona || session?.personaName;
    if (!persona) return reply(context, to, 'Usage: /new <persona>');
    // The authority decides whose persona it may be, then a new session is a message of the day like
    // any other (five /new past a limit of one made five minds, issue 72 §2.4).
    const person = binding.personId ? await findPerson(binding.personId) : null;
    const may = person ? await startSessionWith(person, persona) : null;
    if (may?.verdict === 'refuse') return reply(context, to, `Could not start a session of ${persona}: ${may.reason}`);
    const spent = await allowanceRefusal(binding.personId, context.now());
    if (spent) return reply(context, to, spent);
    try {
      const created = await openPersonalSession(host, binding, persona);
      return reply(context, to, `New session "${created.name}" started${binding.sessionId ? '; this chat stays bound to its session (change it on the Channels page)' : ''}.`);
    } catch (error) {
      return reply(context, to, `Could not start a session of ${persona}: ${errorText(error)}`);
    }
  }
  // A card is decided by what was sent to this chat, whichever session it belongs to (the owner's chat gets every card).
  if (name === 'approve' || name === 'always' || name === 'deny') {
    const match = /^(\S{1,40})(?:\s+([\s\S]*))?$/.exec(argument);
    const byMail = context.channel.kind === 'email';
    // By mail a card is named by the code its mail gave (a number alone is guessable, a From forgeable).
    const secret = (context.channel.config as { callback_secret?: string }).callback_secret ?? '';
    const outboxId = !match ? null : byMail ? verifyMailCardCode(secret, context.channel.id, match[1]!) : /^\d{1,12}$/.test(match[1]!) ? Number(match[1]) : null;
    if (outboxId === null) return reply(context, to, byMail ? `Usage: ${name} <the code in the card's mail>${name === 'deny' ? ' [reason]' : ''}` : `Usage: !${name} <card number>${name === 'deny' ? ' [reason]' : ''}`);
    const decision: CardDecision = name === 'deny' ? 'deny' : name === 'always' ? 'always' : 'approve';
    return reply(context, to, (await decideCard(context, binding, outboxId, decision, match![2]?.trim())).text);
  }
  if (name === 'voice') return reply(context, to, await voiceCommand(context.channel.kind, binding, argument));
  if (!session) return reply(context, to, 'No session is bound here now.');
  switch (name) {
    case 'status':
      return reply(context, to, `${session.name}: ${session.status} (persona ${session.personaName})`);
    case 'pause':
      await host.pauseSession(session.id);
      return reply(context, to, 'Paused.');
    case 'resume':
      await host.resumeSession(session.id);
      return reply(context, to, 'Resumed.');
    case 'stop':
      return reply(context, to, (await host.stopTurn(session.id)) ? 'Stopped the reply.' : 'Nothing was running.');
    case 'answer': {
      const answered = argument ? await host.answerTask(session.id, argument) : false;
      return reply(context, to, answered ? 'Answer passed to the task.' : 'No task is waiting for an answer.');
    }
    default:
      return reply(context, to, `Unknown command ${name}.`);
  }
}

/** One decision on a card this binding was sent: the same server-side decision as the page's. */
async function decideCard(context: InboundContext, binding: BindingRecord, outboxId: number, decision: CardDecision, reason?: string): Promise<{ decided: boolean; text: string }> {
  // Who this chat is, for the rights authority: a weak identity (IRC without an account) never decides.
  const actor = await chatActor(binding, context.channel.kind);
  if (actor.weakIdentity) return { decided: false, text: `Card ${outboxId} is decided on the page: ${actor.weakIdentity}.` };
  const row = await findOutbox(outboxId);
  const card = row?.payload.card;
  // Only a card sent to this very chat of this channel; decided only by whom the authority allows (on the server, at the decision).
  if (!row || !card || row.channelId !== context.channel.id || row.address !== deliveryAddress(binding)) return { decided: false, text: `No card ${outboxId} here.` };
  const outcome = await context.host.decideToolCall({
    id: card.callId,
    decision: decision === 'deny' ? 'deny' : 'approve',
    ...(decision === 'always' && { remember: 'session' as const }),
    ...(decision === 'deny' && reason && { reason: reason.slice(0, 2_000) }),
    args_hash: card.argsHash,
    // A specialist's card (its parent's chat decides it): the call's own session.
    session_id: card.callSessionId ?? card.sessionId,
  }, actor);
  if (outcome.ok) return { decided: true, text: decision === 'deny' ? `Card ${outboxId}: denied.` : `Card ${outboxId}: approved${decision === 'always' ? ' (and from now on in this session)' : ''}.` };
  if (outcome.code === 'forbidden') return { decided: false, text: `Card ${outboxId} is not decided here: ${outcome.message.replace(/^This card is not decided here: /, '')}.` };
  return { decided: false, text: `Card ${outboxId}: ${outcome.message}` };
}

export async function handleButton(context: InboundContext, button: InboundButton): Promise<void> {
  const binding = await findBinding(context.channel.id, button.sender);
  const secret = (context.channel.config as { callback_secret?: string }).callback_secret;
  const verified = secret ? verifyCallback(secret, context.channel.id, button.data) : null;
  if (!binding || !verified || deliveryAddress(binding) !== button.address) {
    context.counters.ignored++;
    return button.answer('This button is not valid here.');
  }
  const outcome = await decideCard(context, binding, verified.outboxId, verified.decision);
  if (outcome.decided && button.settle) await button.settle(outcome.text);
  else await button.answer(outcome.text);
}
