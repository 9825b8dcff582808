import type { SessionJson } from '@/lib/http/session-json';

export type { SessionJson };
export interface SessionListJson {
  sessions: SessionJson[];
  total: number;
  page: number;
  page_size: number;
}
export interface PersonaSummaryJson {
  name: string;
  size: number;
  updated_at: string;
}
