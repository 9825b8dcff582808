// Who a page is rendered for (issue 61): the owner, a signed-in person (their own links and
// sections only), or a stranger on the sign-in and invite pages. Read from the headers the
// server's entry alone sets (lib/web-auth/web-entry.ts).
import { headers } from 'next/headers';
import { actsAsOwner } from '@/lib/people/web-reach';
import { findPerson, OWNER_ID, type PersonRecord } from '@/lib/store/people-repository';
import { ACTOR_HEADER, WEB_SESSION_HEADER } from '@/lib/web-auth/web-entry';

export type PageVisitor =
  | { kind: 'owner'; passkeySession: boolean }
  | { kind: 'person'; person: PersonRecord; passkeySession: true }
  | { kind: 'stranger' };

export async function pageVisitor(): Promise<PageVisitor> {
  const list = await headers();
  const actor = list.get(ACTOR_HEADER) ?? OWNER_ID;
  if (actor === 'stranger') return { kind: 'stranger' };
  if (actor === OWNER_ID) return { kind: 'owner', passkeySession: list.has(WEB_SESSION_HEADER) };
  const person = await findPerson(actor);
  if (!person) return { kind: 'stranger' };
  if (actsAsOwner(person)) return { kind: 'owner', passkeySession: true };
  return { kind: 'person', person, passkeySession: true };
}
