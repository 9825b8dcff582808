// Files attached to messages (issue 33): one row each; the bytes are in the workspace (path).
import { getDb } from './db';

export interface UploadRecord {
  id: string;
  sessionId: string;
  name: string;
  mimeType: string;
  kind: string;
  size: number;
  sha256: string;
  path: string;
  width: number | null;
  height: number | null;
  note: string | null;
  createdAt: Date;
}

export async function insertUpload(row: Omit<UploadRecord, 'createdAt'>): Promise<UploadRecord> {
  const db = await getDb();
  return db.upload.create({ data: row });
}

export async function findUpload(id: string): Promise<UploadRecord | null> {
  const db = await getDb();
  return db.upload.findUnique({ where: { id } });
}

export async function listUploads(sessionId: string): Promise<UploadRecord[]> {
  const db = await getDb();
  return db.upload.findMany({ where: { sessionId }, orderBy: { createdAt: 'asc' } });
}

/** The JSON of ARCHITECTURE §19: `{kind: "file", id, name, mime_type, bytes, sha256}` and what the page shows. */
export function uploadJson(row: UploadRecord) {
  return {
    kind: 'file' as const,
    id: row.id,
    session_id: row.sessionId,
    name: row.name,
    mime_type: row.mimeType,
    file_kind: row.kind,
    bytes: row.size,
    sha256: row.sha256,
    path: row.path,
    width: row.width,
    height: row.height,
    note: row.note,
    url: `/api/files/${row.id}`,
    created_at: row.createdAt.toISOString(),
  };
}
