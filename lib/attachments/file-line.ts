// How a file travels inside a message's text (issue 33): one line per file, which the model reads
// (where it is in the workspace, what it is, how big) and the page turns into a thumbnail or a
// chip by the id at its end. The same line marks a file the person attached and one the agent
// showed (`show_file`); the text stays the message's whole record, so restarts, exports and the
// Subconscious (which reads this line, never the pixels) all see the same thing.

export interface FileLineFacts {
  id: string;
  path: string;
  kind: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
}

export type FileLineRole = 'attached' | 'shown' | 'viewed';

export const sizeText = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

export function fileLine(file: FileLineFacts, role: FileLineRole = 'attached'): string {
  const dimensions = file.width && file.height ? `, ${file.width} × ${file.height}` : '';
  return `[${role} file: /workspace/${file.path} — ${file.kind}, ${file.mimeType}${dimensions}, ${sizeText(file.size)} · file ${file.id}]`;
}

const linePattern = /\[(attached|shown|viewed) file: \/workspace\/([^\]\n]*?) — ([^\]\n]*?) · file ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\]/g;

export interface FileLineMatch {
  role: FileLineRole;
  path: string;
  /** "image, image/png, 64 × 48, 1 KB" */
  facts: string;
  id: string;
  index: number;
  length: number;
}

/** The file lines in a text, in order. */
export function fileLinesIn(text: string): FileLineMatch[] {
  return [...text.matchAll(linePattern)].map((match) => ({
    role: match[1] as FileLineRole,
    path: match[2]!,
    facts: match[3]!,
    id: match[4]!,
    index: match.index,
    length: match[0].length,
  }));
}

/**
 * The text with each file line replaced by what `replace` gives for it (null: the line is kept);
 * runs of blank lines a removal leaves are closed up only when `tidy` is set.
 */
export function replaceFileLines(text: string, replace: (line: FileLineMatch) => string | null, options: { tidy?: boolean } = {}): string {
  const lines = fileLinesIn(text);
  if (lines.length === 0) return text;
  let out = '';
  let from = 0;
  for (const line of lines) {
    out += text.slice(from, line.index) + (replace(line) ?? text.slice(line.index, line.index + line.length));
    from = line.index + line.length;
  }
  out += text.slice(from);
  return options.tidy ? out.replace(/\n{3,}/g, '\n\n').trim() : out;
}
