// An upload's bytes, as they were shared (issue 33): from the session's workspace when the file
// there is still the one recorded (its SHA-256), else from the store's copy of a person's upload
// (upload_blobs) — which also puts a missing file back in the workspace, so the agent's tools find
// it on whichever process holds the session. A file the agent has since changed is not overwritten.
import { uploadBlob, type UploadRecord } from '@/lib/store/uploads-repository';
import { ensureWorkspace, readBytesInside, writeInside } from './workspace';
import { sha256Hex } from '@/lib/security/digest';
import { errorText } from '@/lib/errors/error-text';

/** The most bytes read back for one file (uploads are capped lower). */
const READ_CAP_BYTES = 64 * 1024 * 1024;


/** The bytes, or why they cannot be had any more. */
export async function uploadBytes(upload: UploadRecord): Promise<Buffer | string> {
  const root = ensureWorkspace(upload.sessionId);
  let missing = false;
  try {
    const { bytes, truncated } = readBytesInside(root, upload.path, READ_CAP_BYTES);
    if (!truncated && sha256Hex(bytes) === upload.sha256) return bytes;
  } catch (error) {
    missing = (error as NodeJS.ErrnoException).code === 'ENOENT' || /does not exist/.test(errorText(error));
  }
  const stored = await uploadBlob(upload.id);
  if (!stored || sha256Hex(stored) !== upload.sha256) return missing ? `${upload.name} is no longer in the workspace` : `${upload.name} has changed in the workspace since it was shared`;
  if (missing) {
    try {
      writeInside(root, upload.path, stored);
    } catch {
      // The workspace refuses the path now (a folder where the file was): served from the store all the same.
    }
  }
  return stored;
}
