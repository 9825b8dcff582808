-- A session's files follow its mind to another machine (issue 31): its workspace, synced through
-- the database (lib/tools/workspace-sync.ts) up to a size cap, and its persona snapshot. Only in a
-- cluster (PostgreSQL): alone, the data folder is the one place they live.
CREATE TABLE "session_files" (
    "session_id" TEXT NOT NULL REFERENCES "sessions"("id") ON DELETE CASCADE,
    -- workspace | persona
    "kind" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    PRIMARY KEY ("session_id", "kind", "path")
);

CREATE TABLE "workspace_syncs" (
    "session_id" TEXT PRIMARY KEY REFERENCES "sessions"("id") ON DELETE CASCADE,
    -- Raised by every push; a machine whose copy is older pulls.
    "generation" BIGINT NOT NULL,
    "files" INTEGER NOT NULL,
    "bytes" BIGINT NOT NULL,
    -- The workspace outgrew the cap: its last copy within it stays; the rest is not synced.
    "over_cap" BOOLEAN NOT NULL DEFAULT false,
    "synced_by" TEXT NOT NULL,
    "synced_at" TIMESTAMPTZ NOT NULL DEFAULT now()
);
