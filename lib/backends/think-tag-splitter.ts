// Splits inline <think>…</think> (DeepSeek-R1, Qwen on Ollama/LM Studio) out of streamed text so
// reasoning never reaches the reply. A tag split across chunks is held back until it resolves.
export type SplitPart = { type: 'text-delta' | 'reasoning-delta'; text: string };

const openTag = '<think>';
const closeTag = '</think>';

export class ThinkTagSplitter {
  private inside = false;
  private pending = '';

  push(chunk: string): SplitPart[] {
    const parts: SplitPart[] = [];
    let text = this.pending + chunk;
    this.pending = '';
    while (text.length > 0) {
      const tag = this.inside ? closeTag : openTag;
      const index = text.indexOf(tag);
      if (index !== -1) {
        this.emit(parts, text.slice(0, index));
        text = text.slice(index + tag.length);
        this.inside = !this.inside;
        continue;
      }
      // Keep a possible partial tag at the end for the next chunk.
      const keep = partialSuffix(text, tag);
      this.emit(parts, text.slice(0, text.length - keep));
      this.pending = text.slice(text.length - keep);
      break;
    }
    return parts;
  }

  /** End of stream: a held-back fragment is ordinary text (or reasoning, inside an open tag). */
  flush(): SplitPart[] {
    const parts: SplitPart[] = [];
    this.emit(parts, this.pending);
    this.pending = '';
    return parts;
  }

  private emit(parts: SplitPart[], text: string): void {
    if (text) parts.push({ type: this.inside ? 'reasoning-delta' : 'text-delta', text });
  }
}

function partialSuffix(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
