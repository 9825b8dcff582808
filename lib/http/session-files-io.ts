// A session's files in its exports (issue 33): the JSON export embeds each file (base64) beside
// its SHA-256; the Markdown transcript links it. Import takes an embedded file as untrusted input
// like any upload — its bytes must match its hash, stay under the upload cap, and pass the same
// checks (what it is by its bytes, images re-encoded, PDFs read, names made safe, the path never
// taken from the file) — and every line that named it is rewritten to the new file.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { fileLine, replaceFileLines } from '@/lib/attachments/file-line';
import { readEnv } from '@/lib/config/env';
import { listUploads, uploadJson } from '@/lib/store/uploads-repository';
import { uploadBytes } from '@/lib/tools/upload-bytes';
import { ApiError } from './api-error';
import { prepareUpload, storeUpload, type PreparedUpload } from './uploads';
import { sha256Hex } from '@/lib/security/digest';

/** Every file of the session, its bytes embedded (null, with the reason, when they are gone). */
export async function exportedFiles(sessionId: string) {
  const files = [];
  for (const row of await listUploads(sessionId)) {
    const bytes = await uploadBytes(row);
    files.push({ ...uploadJson(row), data: typeof bytes === 'string' ? null : bytes.toString('base64'), ...(typeof bytes === 'string' && { missing: bytes }) });
  }
  return files;
}

export const importedFilesSchema = z
  .array(
    z
      .object({
        id: z.string().uuid(),
        name: z.string().min(1).max(255),
        mime_type: z.string().max(100),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 hex digits'),
        data: z.string().max(400 * 1024 * 1024).nullable(),
      })
      .passthrough(),
  )
  .max(500);

export type ImportedFile = z.infer<typeof importedFilesSchema>[number];

export class FileImportError extends Error {}

export interface PreparedImport {
  files: { id: string; prepared: PreparedUpload }[];
  /** A text with every line naming an imported file pointed at its new copy. */
  rewrite(text: string): string;
}

/** Checks and prepares every embedded file before anything is written; a bad one refuses the import. */
export async function prepareImportedFiles(files: readonly ImportedFile[]): Promise<PreparedImport> {
  const cap = readEnv().AGENTCSD_UPLOAD_MAX_MB * 1024 * 1024;
  const byOldId = new Map<string, { id: string; prepared: PreparedUpload; path: string }>();
  const taken = new Set<string>();
  for (const file of files) {
    if (file.data === null) continue;
    const bytes = Buffer.from(file.data, 'base64');
    if (bytes.length > cap) throw new FileImportError(`file ${file.name}: larger than the ${readEnv().AGENTCSD_UPLOAD_MAX_MB} MB upload cap`);
    let prepared: PreparedUpload;
    try {
      prepared = await prepareUpload({ name: file.name, claimedType: file.mime_type, bytes });
    } catch (error) {
      if (error instanceof ApiError) throw new FileImportError(`file ${error.message}`);
      throw error;
    }
    // Checked on the bytes as given (an image is re-encoded after).
    if (sha256Hex(bytes) !== file.sha256) throw new FileImportError(`file ${file.name}: its bytes do not match its sha256`);
    let name = prepared.name;
    for (let index = 2; taken.has(name.toLowerCase()); index++) name = prepared.name.replace(/(\.[A-Za-z0-9]{1,8})?$/, ` (${index})$1`);
    taken.add(name.toLowerCase());
    byOldId.set(file.id, { id: randomUUID(), prepared: { ...prepared, name }, path: `uploads/${name}` });
  }
  const rewrite = (text: string) =>
    replaceFileLines(text, (line) => {
      const found = byOldId.get(line.id);
      return found ? fileLine({ ...found.prepared, id: found.id, path: found.path, size: found.prepared.bytes.length, kind: found.prepared.kind }, line.role) : null;
    });
  return { files: [...byOldId.values()].map(({ id, prepared }) => ({ id, prepared })), rewrite };
}

export async function storeImportedFiles(sessionId: string, prepared: PreparedImport): Promise<void> {
  for (const file of prepared.files) await storeUpload(sessionId, file.prepared, file.id);
}

/** For the Markdown transcript: each file line becomes a link to the file (while this app serves it). */
export function linkFileLines(text: string): string {
  return replaceFileLines(text, (line) => `📎 [${(line.path.split('/').at(-1) ?? line.path).replace(/[[\]]/g, '')}](/api/files/${line.id}) — ${line.facts}`);
}
