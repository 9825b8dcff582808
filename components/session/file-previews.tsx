'use client';

// Files in the conversation (issue 33): the lines a message or a tool result carries for each
// file (lib/attachments/file-line.ts) become a thumbnail (an image: click to open it full size)
// or a download chip. The images come from our own origin (`/api/files/:id`), never from a URL
// in the text; a file changed since it was shared answers 410 and shows as such.
import { useState } from 'react';
import { fileLinesIn, replaceFileLines, type FileLineMatch } from '@/lib/attachments/file-line';

/** The text without its file lines, and the files they name, in order. */
export function splitFileLines(content: string): { text: string; files: FileLineMatch[] } {
  const files = fileLinesIn(content);
  if (files.length === 0) return { text: content, files };
  return { text: replaceFileLines(content, () => '', { tidy: true }), files };
}

function FilePreview(props: { file: FileLineMatch }) {
  const { file } = props;
  const [failed, setFailed] = useState(false);
  const url = `/api/files/${file.id}`;
  const name = file.path.split('/').at(-1) ?? file.path;
  const image = file.facts.startsWith('image,') && !failed;
  if (image) {
    return (
      <a href={url} target="_blank" rel="noreferrer" className="block w-fit" data-testid="file-thumbnail" title={`${file.path} — ${file.facts}`}>
        {/* eslint-disable-next-line @next/next/no-img-element -- our own file route: no optimiser for sandboxed bytes */}
        <img src={url} alt={name} loading="lazy" className="max-h-48 max-w-full rounded border border-black/10 object-contain" onError={() => setFailed(true)} />
      </a>
    );
  }
  // A recording (a voice note, push-to-talk: issue 76): played here, and marked as spoken.
  if (file.facts.startsWith('audio,') && !failed) {
    return (
      <span className="flex flex-wrap items-center gap-2 text-xs" data-testid="file-audio">
        <span aria-hidden="true">🎤</span>
        <span>spoken</span>
        <audio controls preload="none" src={url} aria-label={`Recording ${name}`} className="h-8 max-w-full" onError={() => setFailed(true)} />
      </span>
    );
  }
  return (
    <a href={url} className="inline-block rounded bg-black/10 px-2 py-0.5 font-mono text-xs hover:underline dark:bg-white/10" data-testid="file-chip" title={file.facts}>
      {failed ? `⚠ ${name} (changed since it was shared)` : `📄 ${name} · ${file.facts.split(', ').at(-1)}`}
    </a>
  );
}

/** The files a text names, as thumbnails and chips. */
export function FilePreviews(props: { files: readonly FileLineMatch[] }) {
  if (props.files.length === 0) return null;
  return (
    <div className="mt-1 flex flex-wrap gap-2" aria-label="Files">
      {props.files.map((file, index) => (
        <FilePreview key={`${file.id}-${index}`} file={file} />
      ))}
    </div>
  );
}
