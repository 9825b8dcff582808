// A file attached to a message (issue 33): what it is comes from its bytes (lib/attachments); an
// image is kept re-encoded (no EXIF/GPS, nothing appended) at its full size; the bytes go into the
// session's workspace under uploads/ through writeInside (the name made safe, never a path), so
// the agent's tools can use them; a row describes it. Served back with its sniffed type, never
// sniffed again by the browser, sandboxed, and as a download unless it is an image.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { classify } from '@/lib/attachments/file-kind';
import { ImageRefusedError, sanitizeImage } from '@/lib/attachments/image-prep';
import { PdfRefusedError, pdfNote, readPdf } from '@/lib/attachments/pdf-prep';
import { findUpload, insertUpload, type UploadRecord } from '@/lib/store/uploads-repository';
import { uploadBytes } from '@/lib/tools/upload-bytes';
import { ensureWorkspace, writeInside } from '@/lib/tools/workspace';
import { ApiError } from './api-error';
import { sha256Hex } from '@/lib/security/digest';

/** A file made ready to keep: what it is, its clean bytes, its facts. Nothing is written yet. */
export interface PreparedUpload {
  name: string;
  mimeType: string;
  kind: string;
  bytes: Buffer;
  sha256: string;
  width: number | null;
  height: number | null;
  note: string | null;
}

/** Decides what the file is, cleans an image, reads a PDF — or refuses it (422) with the reason. */
export async function prepareUpload(input: { name: string; claimedType: string | null; bytes: Buffer }): Promise<PreparedUpload> {
  const classified = classify({ name: input.name, claimedType: input.claimedType, bytes: input.bytes });
  let bytes = input.bytes;
  let size: { width: number; height: number } | null = null;
  let mimeType = classified.mimeType;
  let note = classified.note ?? null;
  try {
    if (classified.kind === 'pdf') note = [note, pdfNote(await readPdf(input.bytes))].filter(Boolean).join('; ') || null;
    if (classified.kind === 'image') {
      const clean = await sanitizeImage(input.bytes);
      bytes = clean.bytes;
      mimeType = clean.mimeType;
      size = { width: clean.width, height: clean.height };
    }
  } catch (error) {
    if (error instanceof PdfRefusedError || error instanceof ImageRefusedError) throw new ApiError('unprocessable', `${classified.name} was refused: ${error.message}`);
    throw error;
  }
  const name = mimeType === 'image/png' && !/\.png$/i.test(classified.name) ? classified.name.replace(/\.[A-Za-z0-9]{1,8}$/, '') + '.png' : classified.name;
  return { name, mimeType, kind: classified.kind, bytes, sha256: sha256Hex(bytes), width: size?.width ?? null, height: size?.height ?? null, note };
}

/** Writes a prepared file into the session's uploads/ (under a free name) and records it, bytes kept in the store too. */
export async function storeUpload(sessionId: string, prepared: PreparedUpload, id: string = randomUUID()): Promise<UploadRecord> {
  const root = ensureWorkspace(sessionId);
  const name = freeName(root, prepared.name);
  writeInside(root, `uploads/${name}`, prepared.bytes);
  const { bytes, ...facts } = prepared;
  return insertUpload({ ...facts, id, sessionId, name, size: bytes.length, path: `uploads/${name}`, bytes });
}

export async function acceptUpload(input: { sessionId: string; name: string; claimedType: string | null; bytes: Buffer }): Promise<UploadRecord> {
  return storeUpload(input.sessionId, await prepareUpload(input));
}

/** `name`, or `name (2).ext`, `name (3).ext`… — the first not taken in uploads/. */
function freeName(root: string, name: string): string {
  const extension = path.extname(name);
  const stem = name.slice(0, name.length - extension.length);
  for (let index = 1; ; index++) {
    const candidate = index === 1 ? name : `${stem} (${index})${extension}`;
    if (!fs.existsSync(path.join(root, 'uploads', candidate))) return candidate;
  }
}

/** The bytes as shared and the headers to serve them with. */
export async function readUpload(row: UploadRecord): Promise<{ bytes: Buffer; headers: Record<string, string> }> {
  const bytes = await uploadBytes(row);
  // A file the agent viewed or showed may have been rewritten since: only the bytes recorded are served.
  if (typeof bytes === 'string') throw new ApiError(/changed/.test(bytes) ? 'gone' : 'not_found', bytes);
  const inline = row.kind === 'image';
  return {
    bytes,
    headers: {
      'content-type': row.mimeType === 'text/plain' ? 'text/plain; charset=utf-8' : row.mimeType,
      'content-length': String(bytes.length),
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'content-disposition': `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(row.name)}`,
      'cache-control': 'private, max-age=3600',
    },
  };
}

export async function requireUpload(id: string): Promise<UploadRecord> {
  const row = await findUpload(id);
  if (!row) throw new ApiError('not_found', `No file ${id}`);
  return row;
}
