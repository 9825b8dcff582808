// A streaming tokenizer for our tags. Text that might be the start of one of our tags at the end
// of a chunk (`<ID_qu`) is held back until the next chunk decides it, so a tag split across
// chunks is never shown as text. Tags match case-insensitively with spaces tolerated inside the
// brackets; anything that is not one of our exact names is text.
import { canonicalTagName, tagNames, type TagName } from './tag-names';

export type TagToken = { type: 'text'; text: string } | { type: 'open' | 'close'; name: TagName };

const completeTag = /^<\s*(\/?)\s*([A-Za-z_]+)\s*>/;
const longestTag = Math.max(...tagNames.map((name) => name.length)) + 16; // room for spaces

/** Could `fragment` (starting with "<") still grow into one of our tags? */
function couldBeTag(fragment: string): boolean {
  if (fragment.length > longestTag) return false;
  const match = /^<\s*\/?\s*([A-Za-z_]*)(\s*)$/.exec(fragment);
  if (!match) return false;
  const name = match[1]!.toLowerCase();
  if (match[2] && !canonicalTagName(name)) return false;
  return tagNames.some((tag) => tag.toLowerCase().startsWith(name));
}

export class TagTokenizer {
  private buffer = '';

  push(chunk: string): TagToken[] {
    this.buffer += chunk;
    return this.drain(false);
  }

  /** End of stream: a held-back fragment was text after all. */
  end(): TagToken[] {
    return this.drain(true);
  }

  private drain(final: boolean): TagToken[] {
    const tokens: TagToken[] = [];
    let text = '';
    let index = 0;
    const buffer = this.buffer;
    while (index < buffer.length) {
      const next = buffer.indexOf('<', index);
      if (next === -1) {
        text += buffer.slice(index);
        index = buffer.length;
        break;
      }
      text += buffer.slice(index, next);
      const rest = buffer.slice(next);
      const match = completeTag.exec(rest);
      const name = match ? canonicalTagName(match[2]!) : undefined;
      if (match && name) {
        if (text) tokens.push({ type: 'text', text });
        text = '';
        tokens.push({ type: match[1] ? 'close' : 'open', name });
        index = next + match[0].length;
        continue;
      }
      if (!final && !rest.includes('>') && couldBeTag(rest)) {
        // Hold the possible tag start for the next chunk.
        if (text) tokens.push({ type: 'text', text });
        this.buffer = rest;
        return tokens;
      }
      text += '<';
      index = next + 1;
    }
    if (text) tokens.push({ type: 'text', text });
    this.buffer = '';
    return tokens;
  }
}

export function tokenize(text: string): TagToken[] {
  const tokenizer = new TagTokenizer();
  return [...tokenizer.push(text), ...tokenizer.end()];
}
