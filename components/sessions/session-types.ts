import type { SessionJson } from '@/lib/http/session-json';

export type { SessionJson };
/** A session as the list shows it: with who is in it. */
export type SessionListEntry = SessionJson & { people?: { id: string; name: string; role: string }[] };
export interface SessionListJson {
  sessions: SessionListEntry[];
  total: number;
  page: number;
  page_size: number;
}
export interface PersonaSummaryJson {
  name: string;
  size: number;
  updated_at: string;
}
