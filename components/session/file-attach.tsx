'use client';

// Attaching files to a message (issue 33): a button, a paste, or a drop uploads each file at once
// (POST /api/sessions/:id/uploads — the server decides what it is, cleans images and refuses
// what it must, with the reason shown here); the composer shows them as thumbnails or chips until
// the message goes. A model known not to take images is said so before sending: it will read each
// image's name and place only.
import { useState } from 'react';
import { ApiRequestError } from '@/components/api-client';
import { sizeText } from '@/lib/attachments/file-line';
import { errorText } from '@/lib/errors/error-text';

export interface AttachedFile {
  id: string;
  name: string;
  file_kind: string;
  mime_type: string;
  bytes: number;
  width: number | null;
  height: number | null;
  note: string | null;
  url: string;
}

async function uploadOne(sessionId: string, file: File): Promise<AttachedFile> {
  const form = new FormData();
  form.append('file', file, file.name || 'pasted.png');
  const response = await fetch(`/api/sessions/${sessionId}/uploads`, { method: 'POST', body: form });
  const payload = (await response.json().catch(() => null)) as { file?: AttachedFile; error?: { code: string; message: string } } | null;
  if (!response.ok || !payload?.file) {
    throw new ApiRequestError(response.status, payload?.error?.code ?? 'http_error', payload?.error?.message ?? `Upload failed (${response.status})`);
  }
  return payload.file;
}

export function useAttachedFiles(sessionId: string, onError: (message: string) => void) {
  const [files, setFiles] = useState<AttachedFile[]>([]);
  const [uploading, setUploading] = useState<string[]>([]);

  async function add(list: Iterable<File>) {
    for (const file of list) {
      setUploading((before) => [...before, file.name]);
      try {
        const uploaded = await uploadOne(sessionId, file);
        setFiles((before) => [...before, uploaded]);
      } catch (caught) {
        onError(errorText(caught));
      } finally {
        setUploading((before) => before.filter((name, index) => index !== before.indexOf(file.name) || name !== file.name));
      }
    }
  }

  return {
    files,
    uploading,
    add,
    /** A file already kept by the server (a push-to-talk recording). */
    keep: (file: AttachedFile) => setFiles((before) => [...before, file]),
    remove: (id: string) => setFiles((before) => before.filter((file) => file.id !== id)),
    clear: () => setFiles([]),
  };
}

export function AttachButton(props: { disabled: boolean; onFiles: (files: File[]) => void }) {
  return (
    <label className={`btn cursor-pointer ${props.disabled ? 'pointer-events-none opacity-50' : ''}`} title="Attach images, PDFs or text files">
      + Attach
      <input
        type="file"
        multiple
        className="sr-only"
        aria-label="Attach files"
        accept="image/png,image/jpeg,image/webp,image/gif,application/pdf,text/*,.md,.csv,.json,.log"
        disabled={props.disabled}
        onChange={(event) => {
          props.onFiles([...(event.target.files ?? [])]);
          event.target.value = '';
        }}
      />
    </label>
  );
}

export function AttachedFileChips(props: { files: AttachedFile[]; uploading: string[]; blindModel: string | null; onRemove: (id: string) => void }) {
  if (props.files.length === 0 && props.uploading.length === 0) return null;
  const images = props.files.some((file) => file.file_kind === 'image');
  return (
    <div className="space-y-1 text-xs" aria-label="Files to send">
      <div className="flex flex-wrap items-end gap-2">
        {props.files.map((file) => (
          <figure key={file.id} className="relative rounded border border-zinc-200 p-1 dark:border-zinc-700" data-testid="pending-file">
            {file.file_kind === 'image' ? (
              // eslint-disable-next-line @next/next/no-img-element -- our own file route
              <img src={file.url} alt={file.name} className="h-16 max-w-32 rounded object-cover" />
            ) : (
              <span className="block px-2 py-3 font-mono">📄 {file.name}</span>
            )}
            <figcaption className="max-w-32 truncate text-[11px] text-zinc-500" title={file.note ?? undefined}>
              {file.name} · {sizeText(file.bytes)}
              {file.note && ' ⚠'}
            </figcaption>
            <button type="button" className="absolute top-0 right-1" aria-label={`Remove ${file.name}`} onClick={() => props.onRemove(file.id)}>
              ×
            </button>
          </figure>
        ))}
        {props.uploading.map((name, index) => (
          <span key={`${name}-${index}`} className="text-zinc-500">
            Uploading {name}…
          </span>
        ))}
      </div>
      {props.files.filter((file) => file.note).map((file) => (
        <p key={file.id} className="text-amber-700 dark:text-amber-300">
          {file.name}: {file.note}
        </p>
      ))}
      {images && props.blindModel && (
        <p role="status" className="text-amber-700 dark:text-amber-300">
          {props.blindModel} does not take images: it will read each image’s name and place only. Send to give it the text alone, or switch the session to a vision model.
        </p>
      )}
    </div>
  );
}
