// Turns tagged model output into the text of each section, incrementally, and never throws.
// The rules (covered by the property tests next to this file):
//  1. Tags are ours only (tag-names.ts), matched case-insensitively with spaces inside the
//     brackets tolerated. A tag is a tag wherever it appears, code fences included.
//  2. Sections come in groups of siblings (e.g. ID_loud/ID_quiet). Opening a section closes any
//     open sibling: an unclosed <ID_quiet> never runs on into an <ID_loud>, and vice versa.
//  3. Text goes to every open section; text outside all sections goes to `outside`.
//  4. A closing tag closes its section if open; an orphan closing tag is dropped.
//  5. A section opened again continues with a blank line ("\n\n") between the occurrences.
//  6. A section's text is trimmed: leading whitespace is dropped, trailing whitespace is held
//     back until more text follows, so streamed deltas add up exactly to the final text.
//  7. An unclosed section ends with the output. Tags of ours that are not being tracked are
//     dropped; their surrounding text stays where it was.
import { TagTokenizer } from './tag-tokenizer';
import type { TagName } from './tag-names';

export type SectionKey = TagName | 'outside';

export interface SectionDelta {
  section: SectionKey;
  text: string;
}

interface SectionState {
  open: boolean;
  started: boolean; // any non-whitespace text emitted yet
  pendingWhitespace: string;
  needsSeparator: boolean;
}

export class SectionParser {
  private readonly tokenizer = new TagTokenizer();
  private readonly groupOf = new Map<TagName, number>();
  private readonly states = new Map<SectionKey, SectionState>();
  /** Whether any tracked tag appeared at all (the C_model's untagged fallback needs this). */
  sawTrackedTag = false;

  constructor(groups: TagName[][]) {
    groups.forEach((group, index) => {
      for (const name of group) {
        this.groupOf.set(name, index);
        this.states.set(name, freshState());
      }
    });
    this.states.set('outside', { ...freshState(), open: true });
  }

  push(chunk: string): SectionDelta[] {
    return this.consume(this.tokenizer.push(chunk));
  }

  end(): SectionDelta[] {
    return this.consume(this.tokenizer.end());
  }

  private consume(tokens: ReturnType<TagTokenizer['push']>): SectionDelta[] {
    const deltas: SectionDelta[] = [];
    for (const token of tokens) {
      if (token.type === 'text') {
        const targets = [...this.states.entries()].filter(([key, state]) => key !== 'outside' && state.open);
        if (targets.length === 0) this.append('outside', token.text, deltas);
        for (const [key] of targets) this.append(key, token.text, deltas);
        continue;
      }
      const group = this.groupOf.get(token.name);
      if (group === undefined) continue; // a tag of ours we do not track here
      this.sawTrackedTag = true;
      const state = this.states.get(token.name)!;
      if (token.type === 'open') {
        for (const [name, index] of this.groupOf) if (index === group && name !== token.name) this.states.get(name)!.open = false;
        if (!state.open && state.started) state.needsSeparator = true;
        state.open = true;
      } else {
        state.open = false;
      }
    }
    return deltas;
  }

  private append(key: SectionKey, text: string, deltas: SectionDelta[]): void {
    const state = this.states.get(key)!;
    const content = state.pendingWhitespace + text;
    const trimmedEnd = content.trimEnd();
    if (!trimmedEnd) {
      // Only whitespace so far: hold it (or drop it, before the section's first text).
      state.pendingWhitespace = state.started ? content : '';
      return;
    }
    let out = state.started ? trimmedEnd : trimmedEnd.trimStart();
    if (state.needsSeparator) {
      out = `\n\n${out.trimStart()}`;
      state.needsSeparator = false;
    }
    state.pendingWhitespace = content.slice(trimmedEnd.length);
    state.started = true;
    deltas.push({ section: key, text: out });
  }
}

function freshState(): SectionState {
  return { open: false, started: false, pendingWhitespace: '', needsSeparator: false };
}

/** Whole-output convenience: every section's final text. */
export function parseSections(text: string, groups: TagName[][]): { sections: Map<SectionKey, string>; sawTrackedTag: boolean } {
  const parser = new SectionParser(groups);
  const sections = new Map<SectionKey, string>();
  for (const delta of [...parser.push(text), ...parser.end()]) sections.set(delta.section, (sections.get(delta.section) ?? '') + delta.text);
  return { sections, sawTrackedTag: parser.sawTrackedTag };
}
