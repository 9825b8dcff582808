// What a signed-in person (not the owner) reaches of the web app (issue 61, ARCHITECTURE §27):
// their sessions and what those hold, their memories and the shared ones, their spending, their
// devices, and — for a trusted person — their door keys. Everything else answers as if it did not
// exist (404 on pages, REST and the socket alike). The owner reaches everything; this is the rights
// authority's table for everyone else, and the routes it lets through still ask it per record.
import { grantedPersonas, PERSON_ROLES, readPeoplePrivacy, sessionsWithOthers, type PersonRecord, type PersonRole } from '@/lib/store/people-repository';
import { seeSession, type Actor, type Answer } from './rights';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ID = '[A-Za-z0-9_-]{1,80}';

type Rule = { methods: readonly string[]; path: RegExp; trusted?: true; session?: true };

const READ = ['GET', 'HEAD'] as const;
const rule = (methods: readonly string[], path: string, extra: Omit<Rule, 'methods' | 'path'> = {}): Rule => ({ methods, path: new RegExp(`^${path}$`), ...extra });

/** Pages and routes a signed-in person may ask for; a route marked `session` is theirs only for their own sessions. */
export const PERSON_ROUTES: readonly Rule[] = [
  // Pages
  rule(READ, '/'),
  rule(READ, `/sessions/(${UUID})`, { session: true }),
  rule(READ, '/memory'),
  rule(READ, '/spending'),
  rule(READ, '/settings'),
  rule(READ, '/settings/devices'),
  rule(READ, '/settings/access', { trusted: true }),
  // Their sessions: the list (theirs only), starting one, and what one of theirs holds.
  rule([...READ, 'POST'], '/api/sessions'),
  rule(READ, `/api/sessions/(${UUID})`, { session: true }),
  rule(READ, `/api/sessions/(${UUID})/(?:history|tool-calls|elicitations|tasks|context|consolidations|browser|export)`, { session: true }),
  rule(['POST'], `/api/sessions/(${UUID})/(?:messages|uploads|voice|speech|stop-turn|browser|browser/input)`, { session: true }),
  // A card, or a file of a conversation: the route finds its session and asks again.
  rule(['POST'], `/api/tool-calls/(${ID})/(?:decision|cancel)`),
  rule(READ, `/api/files/(${UUID})`),
  // Their memories and the shared ones; their spending; the personas they may start a session with.
  rule(READ, '/api/memories'),
  rule(READ, '/api/spending'),
  rule(READ, '/api/personas'),
  // A guest asks the owner for someone to talk to (issue 75 §4); the route asks askForPersonaRule.
  rule([...READ, 'POST'], '/api/persona-requests'),
  rule(READ, '/api/health'),
  // Notifications on their devices (issue 61 §5), and the service worker that shows them.
  rule(READ, '/api/push/key'),
  rule(['POST', 'DELETE'], '/api/push/subscriptions'),
  rule(READ, '/sw.js'),
  // Their own door keys (a trusted person only).
  rule([...READ, 'POST'], '/api/keys', { trusted: true }),
  rule(['DELETE'], `/api/keys/(${ID})`, { trusted: true }),
];

const NOT_THEIRS: Answer = { verdict: 'refuse', reason: 'not found' };

/** Whether a signed-in person reaches this method and path (the owner reaches all: not asked here). */
export async function reachWeb(person: PersonRecord, method: string, pathname: string): Promise<Answer> {
  const verb = method.toUpperCase();
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  for (const candidate of PERSON_ROUTES) {
    if (!candidate.methods.includes(verb)) continue;
    const match = candidate.path.exec(path);
    if (!match) continue;
    if (candidate.trusted && person.role !== 'trusted') return NOT_THEIRS;
    if (candidate.session) {
      const actor: Actor = { person, via: 'page' };
      return (await seeSession(actor, match[1]!)).verdict === 'allow' ? { verdict: 'allow' } : NOT_THEIRS;
    }
    return { verdict: 'allow' };
  }
  return NOT_THEIRS;
}

/**
 * Whether a person may start a session of this persona — on their pages or with a chat's /new: the
 * owner and a trusted person any persona; a guest only one the owner gave them (on People, or a
 * chat bound to the persona or to a session of it), never one a session they opened themselves would grant.
 */
export async function startSessionWith(person: PersonRecord, persona: string): Promise<Answer> {
  if (person.role !== 'guest') return { verdict: 'allow' };
  return (await grantedPersonas(person)).has(persona) ? { verdict: 'allow' } : { verdict: 'refuse', reason: `a guest starts sessions only with the personas the owner gave them; ask the owner for ${persona}` };
}

/** Whether a person may ask the owner for a persona (issue 75 §4): a guest, who has only those given; the others have every one. */
export function askForPersonaRule(person: PersonRecord): Answer {
  if (person.role === 'guest') return { verdict: 'allow' };
  return { verdict: 'refuse', reason: person.role === 'owner' ? 'the owner has every persona' : 'a trusted person may talk to every persona already' };
}

/** Whether a person's request for a persona is answered (issue 75 §4): they may no longer ask, or the owner gave them personas. */
export function personaRequestAnswered(person: PersonRecord): boolean {
  return askForPersonaRule(person).verdict === 'refuse' || Boolean(person.limits?.personas?.length);
}

/** The personas a person may start a session with, from all there are (see startSessionWith). */
export async function personasFor(person: PersonRecord, all: readonly string[]): Promise<string[]> {
  if (person.role !== 'guest') return [...all];
  const own = await grantedPersonas(person);
  return all.filter((name) => own.has(name));
}

/**
 * Whether this person reads the words of a session (issue 61 §6): its people always; the owner
 * too, unless the household chose that people's words stay their own — then the owner's pages show
 * that the conversation exists, its cost and the cards the owner decides, not what was said.
 */
export async function seeWords(person: PersonRecord, sessionId: string): Promise<Answer> {
  if (person.role !== 'owner') return { verdict: 'allow' };
  return (await wordsHiddenFromOwner([sessionId])).has(sessionId) ? { verdict: 'refuse', reason: 'its words stay with the people in it (People › "Their words stay their own")' } : { verdict: 'allow' };
}

/** Of these sessions, those whose words the owner does not read now (none unless the setting is on). */
export async function wordsHiddenFromOwner(sessionIds: readonly string[]): Promise<Set<string>> {
  if (!(await readPeoplePrivacy()).words_stay_private) return new Set();
  return sessionsWithOthers(sessionIds);
}

/** Whether this person is the app's owner (their passkey is as good as the token: every page, every route). */
export function actsAsOwner(person: Pick<PersonRecord, 'role'>): boolean {
  return person.role === 'owner';
}

/** Whether a person's signed-in browsers stay signed in through a role change: not when it takes rights away. */
export function signInSurvives(before: PersonRole, after: PersonRole): boolean {
  return PERSON_ROLES.indexOf(after) <= PERSON_ROLES.indexOf(before);
}

/** The Settings sections a signed-in person reaches, asked of the table above. */
export async function settingsSectionsFor(person: PersonRecord, sections: readonly string[]): Promise<string[]> {
  const reached = await Promise.all(sections.map(async (slug) => ((await reachWeb(person, 'GET', `/settings/${slug}`)).verdict === 'allow' ? slug : null)));
  return reached.filter((slug): slug is string => slug !== null);
}
