// A file attached to a message (issue 33), as the REST routes take it: kept by
// lib/tools/upload-store.ts (its refusal is a 422 here). Served back with its sniffed type, never
// sniffed again by the browser, sandboxed, and as a download unless it is an image.
import { findUpload, type UploadRecord } from '@/lib/store/uploads-repository';
import { uploadBytes } from '@/lib/tools/upload-bytes';
import { prepareUpload as prepareKept, storeUpload, UploadRefusedError, type PreparedUpload } from '@/lib/tools/upload-store';
import { ApiError } from './api-error';

export { storeUpload, type PreparedUpload };

/** Decides what the file is, cleans an image, reads a PDF — or refuses it (422) with the reason. */
export async function prepareUpload(input: { name: string; claimedType: string | null; bytes: Buffer }): Promise<PreparedUpload> {
  try {
    return await prepareKept(input);
  } catch (error) {
    if (error instanceof UploadRefusedError) throw new ApiError('unprocessable', error.message);
    throw error;
  }
}

export async function acceptUpload(input: { sessionId: string; name: string; claimedType: string | null; bytes: Buffer }): Promise<UploadRecord> {
  return storeUpload(input.sessionId, await prepareUpload(input));
}

/** The bytes as shared and the headers to serve them with. */
export async function readUpload(row: UploadRecord): Promise<{ bytes: Buffer; headers: Record<string, string> }> {
  const bytes = await uploadBytes(row);
  // A file the agent viewed or showed may have been rewritten since: only the bytes recorded are served.
  if (typeof bytes === 'string') throw new ApiError(/changed/.test(bytes) ? 'gone' : 'not_found', bytes);
  // A picture is shown and a recording played in the page; anything else is a download.
  const inline = row.kind === 'image' || row.kind === 'audio';
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
