-- Several processes on one database (issue 19, lib/engine/cluster.ts): who is alive, which process
-- runs each session's mind, and the calls one process makes to another (a message typed into a
-- session whose mind runs elsewhere). Times are the database's own clock, so machines need not agree.
CREATE TABLE "cluster_members" (
    "owner" TEXT PRIMARY KEY,
    "boot_id" TEXT NOT NULL,
    "heartbeat_at" TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE "session_leases" (
    "session_id" TEXT PRIMARY KEY REFERENCES "sessions"("id") ON DELETE CASCADE,
    "owner" TEXT NOT NULL
);
CREATE INDEX "session_leases_owner_idx" ON "session_leases"("owner");

CREATE TABLE "cluster_calls" (
    "id" TEXT PRIMARY KEY,
    "to_owner" TEXT NOT NULL,
    "request" JSONB NOT NULL,
    "reply" JSONB,
    "created_at" TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Socket.IO's PostgreSQL adapter: events for the browsers of every process (large ones pass here).
CREATE TABLE "socket_io_attachments" (
    "id" BIGSERIAL UNIQUE,
    "created_at" TIMESTAMPTZ DEFAULT now(),
    "payload" BYTEA
);
