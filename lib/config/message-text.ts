// One rule for what a person's message may be, whatever the entry — the page, the socket, a chat,
// the OpenAI, MCP and ACP doors (issue 72 §3: 4,000 to 100,000 characters by entry, a chat cut at
// 16,000 without a word, NUL refused on some doors only). Refused with the same words everywhere;
// nothing is cut.
import { z } from 'zod';
import { withoutNul } from './text-schema';

export const MESSAGE_MAX_CHARS = 20_000;

const TOO_LONG = `a message must be at most ${MESSAGE_MAX_CHARS.toLocaleString('en-US')} characters`;
const HAS_NUL = 'a message must not contain NUL characters';

/** A message's text as the routes and doors parse it (trimmed; may be empty where a file is the message). */
export const messageTextSchema = withoutNul(z.string().trim().max(MESSAGE_MAX_CHARS, TOO_LONG));

/** Why this text cannot be a message, in the words every entry gives; null when it can. */
export function messageRefusal(text: string): string | null {
  if (text.includes('\u0000')) return HAS_NUL;
  if (text.trim().length > MESSAGE_MAX_CHARS) return `${TOO_LONG} (this one has ${text.trim().length.toLocaleString('en-US')})`;
  return null;
}
