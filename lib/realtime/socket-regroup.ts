// Open pages follow the words rule as it changes (issue 72 §2.2): an owner's page that joined a
// session's words before "Their words stay their own" was turned on — or before the session gained
// people — kept receiving replies, thoughts and messages. When either changes, every socket of this
// process that watches an affected session is put in the room it would join now: the words, or
// only the state, cost and cards (and out of the agent's browser). Another process of a cluster
// learns of the change on its next recheck.
import type { Server, Socket } from 'socket.io';
import type { Actor } from '@/lib/people/rights';
import { seeWords } from '@/lib/people/web-reach';
import { browserRoom, sessionMetaRoom, sessionRoom } from './socket-events';

const ROOM = /^(session|session-meta|browser):([0-9a-f-]{36})$/;

/** The sessions a socket watches, from its rooms. */
function watchedSessions(socket: Socket): Set<string> {
  const sessions = new Set<string>();
  for (const room of socket.rooms) {
    const match = ROOM.exec(room);
    if (match) sessions.add(match[2]!);
  }
  return sessions;
}

/** Moves each socket watching one of `sessions` (all: every session) to the rooms the rule gives it now. */
export async function regroupSockets(io: Server, actorOf: (socket: Socket) => Promise<Actor>, sessions: readonly string[] | 'all'): Promise<void> {
  for (const socket of io.sockets.sockets.values()) {
    const watched = [...watchedSessions(socket)].filter((id) => sessions === 'all' || sessions.includes(id));
    if (watched.length === 0) continue;
    const actor = await actorOf(socket);
    for (const id of watched) {
      const wordless = actor.person !== null && (await seeWords(actor.person, id)).verdict === 'refuse';
      const inWords = socket.rooms.has(sessionRoom(id));
      const inMeta = socket.rooms.has(sessionMetaRoom(id));
      if (wordless) {
        if (inWords) {
          await socket.leave(sessionRoom(id));
          await socket.join(sessionMetaRoom(id));
        }
        if (socket.rooms.has(browserRoom(id))) await socket.leave(browserRoom(id));
      } else if (inMeta) {
        await socket.leave(sessionMetaRoom(id));
        await socket.join(sessionRoom(id));
      }
    }
  }
}
