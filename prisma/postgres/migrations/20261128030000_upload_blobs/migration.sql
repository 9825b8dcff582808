-- A person's uploads kept in the store too (issue 33): any process of a cluster serves them, a workspace that lost one is mended, exports embed them.
CREATE TABLE "upload_blobs" (
    "upload_id" TEXT NOT NULL PRIMARY KEY,
    "bytes" BYTEA NOT NULL,
    CONSTRAINT "upload_blobs_upload_id_fkey" FOREIGN KEY ("upload_id") REFERENCES "uploads"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
