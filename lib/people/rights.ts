// The rights authority (issue 58, ARCHITECTURE §26): every "may this person do this here?" of the
// app is answered here and nowhere else — a message delivered (the daily limit, whatever the entry),
// a tool offered or called (by its traits), a card decided (owner-only cards; a trusted person only
// in their own conversations; never a guest nor an identity anyone could wear), a memory read,
// changed, forgotten or shared, a session seen, a model call paid for. Paths ask and obey; none keeps
// a rule of its own. Answers are allow, refuse with the reason in words, or ask (whom).
import { overrideUntil, spentAllowance } from '@/lib/mind/allowance-guard';
import type { AllowanceRecord } from '@/lib/store/allowances-repository';
import {
  dailyMessageLimit,
  DEFAULT_MESSAGES_PER_DAY,
  conversationPeople,
  findPerson,
  OWNER_ID,
  readableSessions,
  sessionPeople,
  takeDailyMessage,
  type PersonRecord,
  type PersonRole,
} from '@/lib/store/people-repository';
import { ROLE_TRAITS, TOOL_TRAITS, traitsOf, TRAIT_WORDS, type ToolTrait } from './tool-traits';
import { personaExists } from '@/lib/personas/persona-files';

/** Where a decision or a message came from: the page, a chat kind, a door key, or a rule. */
export type Via = 'page' | 'telegram' | 'discord' | 'irc' | 'email' | 'slack' | 'whatsapp' | `door:${string}` | `rule:${string}`;

/** Who asks: a person (null: nobody paired), on which path; `weakIdentity` when anyone could wear it (and why). */
export interface Actor {
  person: PersonRecord | null;
  via: Via;
  weakIdentity?: string;
}

export type Answer = { verdict: 'allow' } | { verdict: 'refuse'; reason: string } | { verdict: 'ask'; whom: 'owner'; reason: string };

const ALLOW: Answer = { verdict: 'allow' };
const refuse = (reason: string): Answer => ({ verdict: 'refuse', reason });

/** The owner, as an actor on a path (the page, the owner's chat). */
export async function ownerActor(via: Via = 'page'): Promise<Actor> {
  return { person: await findPerson(OWNER_ID), via };
}

/** A conversation as the authority reads it: its people, and the tool traits all of them may use. */
export interface Conversation {
  sessionId: string;
  people: PersonRecord[];
  traits: ReadonlySet<ToolTrait>;
}

/** Read once per turn: a conversation is allowed what every one of its people is (a guest among them, or a group, limits it). */
export async function conversationOf(sessionId: string): Promise<Conversation> {
  const { people, group } = await conversationPeople(sessionId);
  const traits = new Set<ToolTrait>(TOOL_TRAITS);
  // A group's conversation is open to members nobody paired: it is allowed no more than a guest is.
  if (group) for (const trait of TOOL_TRAITS) if (!ROLE_TRAITS.guest.includes(trait)) traits.delete(trait);
  for (const person of people) {
    const own = traitsOf(person);
    for (const trait of traits) if (!own.has(trait)) traits.delete(trait);
  }
  return { sessionId, people, traits };
}

const unrestricted = (conversation: Conversation) => conversation.traits.size === TOOL_TRAITS.length;

/** Whether the conversation's model is offered a tool with these traits (undefined: it declared none). */
export function offerTool(conversation: Conversation, name: string, traits: readonly ToolTrait[] | undefined): Answer {
  if (!traits || traits.length === 0) {
    return unrestricted(conversation) ? ALLOW : refuse(`${name} does not say what it does, so it is not offered where someone's rights are limited`);
  }
  const missing = traits.filter((trait) => !conversation.traits.has(trait));
  if (missing.length === 0) return ALLOW;
  const who = conversation.people.find((person) => missing.some((trait) => !traitsOf(person).has(trait)));
  return refuse(`${name} would ${missing.map((trait) => TRAIT_WORDS[trait]).join(' and ')}, which ${who ? `${who.name} (${who.role})` : 'someone in this conversation'} may not (the owner decides on the People page)`);
}

/**
 * Whether this call may go ahead on its usual approval (allow), must be decided by the owner alone
 * (ask: it would share a memory with every conversation), or is refused.
 */
export function callTool(conversation: Conversation, name: string, traits: readonly ToolTrait[] | undefined, callTraits: readonly ToolTrait[] = []): Answer {
  const offered = offerTool(conversation, name, traits);
  if (offered.verdict !== 'allow') return offered;
  const extra = callTraits.filter((trait) => !conversation.traits.has(trait));
  if (extra.length > 0) return refuse(`this call of ${name} would ${extra.map((trait) => TRAIT_WORDS[trait]).join(' and ')}, which this conversation may not`);
  if (callTraits.includes('shares_memory')) return { verdict: 'ask', whom: 'owner', reason: 'only the owner decides what is shared with everyone' };
  return ALLOW;
}

/** What an unknown MCP server is answered with: a refused one gets the very same words (nothing tells which exist). */
export const unknownMcpServer = (server: string) => `No MCP server named ${JSON.stringify(server)} is configured`;

/**
 * Whether a message in this conversation may carry what an MCP server gives — a resource read or a
 * prompt run (issue 72 §1). It is a tool use like any other: only a server the session's graph
 * connects (`connected`; undefined: every server, the default graph) and only where every person of
 * the conversation may read with tools. A refusal is worded as an unknown server's.
 */
export function attachFromServer(conversation: Conversation, server: string, connected: readonly string[] | undefined): Answer {
  if (connected && !connected.includes(server)) return refuse(unknownMcpServer(server));
  if (!conversation.traits.has('read_only')) return refuse(unknownMcpServer(server));
  return ALLOW;
}

/** The card rule itself, on facts (pure: the docs' table is made from it). */
export function cardRule(input: { role: PersonRole | null; weakIdentity?: string; ownerOnly: boolean; inConversation: boolean; rule?: 'session' | 'persona' }): Answer {
  if (input.weakIdentity) return refuse(`it is decided on the page: ${input.weakIdentity}`);
  if (!input.role) return refuse('it is decided on the page: this chat is not a known person');
  if (input.role === 'owner') return ALLOW;
  // An "always allow" for every conversation of the persona reaches other people's: the owner's to make.
  if (input.rule === 'persona') return refuse('only the owner makes a rule for every conversation of the persona');
  if (input.ownerOnly) return refuse('only the owner decides what is shared with everyone');
  if (input.role === 'guest') return refuse('a guest does not decide cards: the owner does, on the page or their own chat');
  return input.inConversation ? ALLOW : refuse('it belongs to a conversation that is not yours');
}

/** Whether this actor decides a card of `sessionId` (`ownerOnly`: the authority said only the owner may when it was proposed). */
export async function decideCard(actor: Actor, card: { sessionId: string; ownerOnly: boolean; rule?: 'session' | 'persona' }): Promise<Answer> {
  const person = actor.person;
  const inConversation = person !== null && person.role === 'trusted' && (await sessionPeople(card.sessionId)).includes(person.id);
  return cardRule({ role: person?.role ?? null, ...(actor.weakIdentity && { weakIdentity: actor.weakIdentity }), ownerOnly: card.ownerOnly, inConversation, ...(card.rule && { rule: card.rule }) });
}

/** The people a card goes to: everyone who may decide it (always the owner). */
export async function cardDeciders(card: { sessionId: string; ownerOnly: boolean }): Promise<Set<string>> {
  const deciders = new Set<string>([OWNER_ID]);
  for (const id of await sessionPeople(card.sessionId)) {
    const person = await findPerson(id);
    if (person && (await decideCard({ person, via: 'page' }, card)).verdict === 'allow') deciders.add(id);
  }
  return deciders;
}

/**
 * A person's message about to enter a conversation, from any entry (a chat, a group, a door): one
 * of their messages of the day is taken, or the polite refusal when none is left.
 */
export async function deliverMessage(person: PersonRecord | null, now: Date): Promise<Answer> {
  if (!person) return ALLOW; // nobody paired: the owner's page, a schedule, a webhook
  const limit = dailyMessageLimit(person);
  if (limit === null) return ALLOW;
  if (await takeDailyMessage({ personId: person.id, limit, now })) return ALLOW;
  return refuse(`Sorry — that is today's ${limit} messages with this assistant. It will be glad to talk again tomorrow (UTC); the owner can raise the limit on the People page.`);
}

/**
 * Something said for a session's people without a message of theirs — a schedule's fire — counts
 * for each of them as a message of the day (issue 72 §3: a person's own schedules fired past their
 * limit). Refused with the first person's reason once one has none left.
 */
export async function deliverForSession(sessionId: string, now: Date): Promise<Answer> {
  for (const id of await sessionPeople(sessionId)) {
    const answer = await deliverMessage(await findPerson(id), now);
    if (answer.verdict === 'refuse') return answer;
  }
  return ALLOW;
}

/** A door key as the authority reads it: the personas the owner gave it. */
export interface DoorKey {
  personas: readonly string[];
}

/** Whether a door key may talk with this persona: one the owner gave it, that still exists (every door asks this; issue 72 §3). */
export function keyReachesPersona(key: DoorKey, persona: string): boolean {
  return key.personas.includes(persona) && personaExists(persona);
}

/** The personas a door key may talk with now (those it names that still exist). */
export function personasOfKey(key: DoorKey): string[] {
  return key.personas.filter((persona) => keyReachesPersona(key, persona));
}

/** A memory as the authority reads it. */
export interface MemoryFacts {
  id: number;
  personaName: string;
  sessionId: string | null;
  shared: boolean;
}

export type MemoryOperation = 'read' | 'change' | 'forget' | 'share';

/** The memory rule on facts (pure): what a conversation may do with a memory it can or cannot read. */
export function memoryRule(input: { id: number; readable: boolean; shared: boolean; ownersAlone: boolean; operation: MemoryOperation }): Answer {
  // A memory the conversation may not read answers as one that does not exist: an id tells nothing.
  if (!input.readable) return refuse(`There is no memory #${input.id} for this persona`);
  if (input.operation === 'read') return ALLOW;
  if (input.operation === 'share' || input.shared) {
    return input.ownersAlone ? ALLOW : refuse(`memory #${input.id} is shared with every conversation: only the owner changes it, in a conversation of their own`);
  }
  return ALLOW;
}

/**
 * What a conversation may do with a memory: read, change or forget only what it may read; a shared
 * memory is changed or forgotten from the owner's own conversations only; sharing is the owner's.
 */
export async function memoryAccess(input: { sessionId: string; personaName: string; memory: MemoryFacts | null; id: number; operation: MemoryOperation }): Promise<Answer> {
  const { memory } = input;
  const ownersAlone = await ownersConversation(input.sessionId);
  if (!memory || memory.personaName !== input.personaName) return memoryRule({ id: input.id, readable: false, shared: false, ownersAlone, operation: input.operation });
  const scope = await readableSessions(input.personaName, input.sessionId);
  const readable = memory.shared || memory.sessionId === null || !scope || !scope.beyond.has(memory.sessionId);
  // A memory of no conversation (a note the owner added on the Memory page) is read in every one:
  // like a shared one, only the owner's conversations change or forget it (issue 72 §2.1).
  return memoryRule({ id: input.id, readable, shared: memory.shared || memory.sessionId === null, ownersAlone, operation: input.operation });
}

/** Whether the actor may see a session (its page, its export, its events): the owner every one, a person their own. */
export async function seeSession(actor: Actor, sessionId: string): Promise<Answer> {
  const role = actor.person?.role ?? null;
  return sessionRule({ role, member: role !== null && role !== 'owner' && (await sessionPeople(sessionId)).includes(actor.person!.id) });
}

/** The session rule on facts (pure). */
export function sessionRule(input: { role: PersonRole | null; member: boolean }): Answer {
  return input.role === 'owner' || input.member ? ALLOW : refuse('it is not a conversation of yours');
}

/** Whether a model call of this conversation may be paid for now (the day's allowances, issue 48); a refusal names the allowance. */
export async function spend(sessionId: string, now: Date, options: { reply?: boolean } = {}): Promise<{ verdict: 'allow' } | { verdict: 'refuse'; reason: string; allowance: AllowanceRecord }> {
  const spent = await spentAllowance(sessionId, now);
  if (!spent) return { verdict: 'allow' };
  if (options.reply !== false && (await ownerOverride(sessionId, now))) return { verdict: 'allow' };
  return { verdict: 'refuse', reason: `Sorry — today's allowance for this assistant is used up. It renews at midnight (${spent.timeZone}); the owner can raise it in Settings.`, allowance: spent };
}

/**
 * The owner's override (one click, until midnight) lets a reply past the allowances — only in a
 * conversation of the owner's alone, never a task's step. One rule, asked by the pre-check above
 * and by the model boundary's hold (issue 72 §2.5: the pre-check refused what the hold let pass).
 */
export async function ownerOverride(sessionId: string, now: Date): Promise<boolean> {
  return (await overrideUntil(now)) !== null && (await ownersConversation(sessionId));
}

/** Whether a person may steer the agent in a group (/join, /answer, /leave): the owner or a trusted person. */
export function steerGroup(person: Pick<PersonRecord, 'role'> | null): Answer {
  return person?.role === 'owner' || person?.role === 'trusted' ? ALLOW : refuse('only the owner or a trusted person steers the agent in a group');
}

/** Whether a door key's person may talk in a session through it: only a conversation they are in (even the owner's key). */
export async function speakThroughDoor(actor: Actor, sessionId: string): Promise<Answer> {
  return actor.person && (await sessionPeople(sessionId)).includes(actor.person.id) ? ALLOW : refuse('it is not a conversation of this key');
}

/**
 * What the owner may change of a person (the one-owner rule): nobody else becomes the owner, the
 * owner stays the owner, is never forgotten nor merged away; the owner's own rights are not narrowed.
 */
export function peopleChangeRule(input: { personId: string; change: 'role' | 'rights' | 'forget' | 'merge_away'; role?: PersonRole }): Answer {
  const owner = input.personId === OWNER_ID;
  switch (input.change) {
    case 'role':
      return (input.role === 'owner') === owner ? ALLOW : refuse(owner ? 'The owner stays the owner' : 'There is one owner: make this person trusted instead');
    case 'rights':
      return owner ? refuse("The owner may do everything: there is nothing to widen or narrow") : ALLOW;
    case 'forget':
      return owner ? refuse('The owner cannot be removed') : ALLOW;
    case 'merge_away':
      return owner ? refuse('The owner is never merged away: merge the other person into the owner') : ALLOW;
  }
}

/** Whether a conversation is the owner's alone (the owner's one-click override of the allowances holds there, issue 48). */
export async function ownersConversation(sessionId: string): Promise<boolean> {
  return (await sessionPeople(sessionId)).every((id) => id === OWNER_ID);
}

/** How a person is named to others (a session's name, a share's warning): "the owner", or their name. */
export function personLabel(person: Pick<PersonRecord, 'role' | 'name'>): string {
  return person.role === 'owner' ? 'the owner' : person.name;
}

/** What a person may do, in words (the People page, GET /api/people/:id). */
export function mayList(person: Pick<PersonRecord, 'role' | 'rights'>): { trait: ToolTrait; words: string; allowed: boolean; changed: boolean }[] {
  const traits = traitsOf(person);
  const role = new Set(ROLE_TRAITS[person.role]);
  return TOOL_TRAITS.map((trait) => ({ trait, words: TRAIT_WORDS[trait], allowed: traits.has(trait), changed: traits.has(trait) !== role.has(trait) }));
}

/** The table of what each role may do, made from the rules above (docs/channels.md shows it; a test keeps the two the same). */
export function rightsTable(): string {
  const roles: PersonRole[] = ['owner', 'trusted', 'guest'];
  const mark = (answer: Answer) => (answer.verdict === 'allow' ? 'yes' : answer.verdict === 'ask' ? 'asks the owner' : '—');
  const everyone = { sessionId: 'table', people: [], traits: new Set<ToolTrait>(TOOL_TRAITS) };
  const asRole = (role: PersonRole): Conversation => ({ ...everyone, traits: new Set(ROLE_TRAITS[role]) });
  const card = (ownerOnly: boolean, inConversation: boolean) => (role: PersonRole) => mark(cardRule({ role, ownerOnly, inConversation: inConversation && role === 'trusted' }));
  // A memory from a conversation of this role's person (the owner's alone, or with others in it).
  const memory = (readable: boolean, shared: boolean) => (role: PersonRole) => mark(memoryRule({ id: 1, readable, shared, ownersAlone: role === 'owner', operation: 'forget' }));
  const rows: [string, (role: PersonRole) => string][] = [
    ...TOOL_TRAITS.map((trait): [string, (role: PersonRole) => string] => [`Tools that ${TRAIT_WORDS[trait]} (\`${trait}\`)`, (role) => mark(callTool(asRole(role), 'tool', [trait], trait === 'shares_memory' ? [trait] : []))]),
    ['Decide a card of their own conversation', card(false, true)],
    ["Decide a card of someone else's conversation", card(false, false)],
    ['Decide a card that shares a memory with everyone', card(true, true)],
    ['Forget a memory of their conversations', memory(true, false)],
    ['Forget a memory shared with everyone', memory(true, true)],
    ['Forget a memory of a conversation they are not in', memory(false, false)],
    ['See a session they are not in', (role) => mark(sessionRule({ role, member: false }))],
    ['Messages a day (unless the owner sets a figure)', (role) => String(DEFAULT_MESSAGES_PER_DAY[role] ?? 'no limit')],
  ];
  return [`| What | ${roles.join(' | ')} |`, `|---|${roles.map(() => '---').join('|')}|`, ...rows.map(([what, cell]) => `| ${what} | ${roles.map(cell).join(' | ')} |`)].join('\n');
}
