// The words of a Markdown reply as they are said aloud (issue 76 §4) — by the browser's voices or
// the server's: no code blocks (said as "code"), links as their text, no marks.

export function spokenText(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, ' (code) ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`#>~|]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
