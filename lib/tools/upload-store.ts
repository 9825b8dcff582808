// A file kept for a session (issue 33, and mail attachments since issue 47): what it is comes from
// its bytes (lib/attachments); an image is kept re-encoded (no EXIF/GPS, nothing appended) at its
// full size, a PDF is read; the bytes go into the session's workspace under uploads/ through
// writeInside (the name made safe, never a path), so the agent's tools can use them; a row
// describes it. A file that cannot be kept is refused with the reason (UploadRefusedError).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { classify } from '@/lib/attachments/file-kind';
import { ImageRefusedError, sanitizeImage } from '@/lib/attachments/image-prep';
import { PdfRefusedError, pdfNote, readPdf } from '@/lib/attachments/pdf-prep';
import { insertUpload, type UploadRecord } from '@/lib/store/uploads-repository';
import { ensureWorkspace, writeInside } from './workspace';
import { sha256Hex } from '@/lib/security/digest';

export class UploadRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UploadRefusedError';
  }
}

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

/** Decides what the file is, cleans an image, reads a PDF — or refuses it with the reason. */
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
    if (error instanceof PdfRefusedError || error instanceof ImageRefusedError) throw new UploadRefusedError(`${classified.name} was refused: ${error.message}`);
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

/** Prepares and keeps one file of a session (a mail's attachment); refuses one that cannot be kept. */
export async function keepFile(sessionId: string, input: { name: string; claimedType: string | null; bytes: Buffer }): Promise<UploadRecord> {
  return storeUpload(sessionId, await prepareUpload(input));
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

