-- A user message that came from a chat (issue 28): the turn that answers it sends the answer back
-- to that chat, whichever process runs the session's mind and after a restart.
CREATE TABLE "channel_inbound" (
    "message_id" INTEGER NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "binding_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "channel_inbound_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "channel_inbound_session_id_idx" ON "channel_inbound"("session_id");

-- Each enabled channel is connected by exactly one process of the cluster (lib/engine/cluster.ts):
-- a dead holder's channels are taken by a survivor, like its sessions.
CREATE TABLE "channel_leases" (
    "channel_id" TEXT PRIMARY KEY REFERENCES "channels"("id") ON DELETE CASCADE,
    "owner" TEXT NOT NULL
);
CREATE INDEX "channel_leases_owner_idx" ON "channel_leases"("owner");
