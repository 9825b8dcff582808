-- A user message that came from a chat (issue 28): the turn that answers it sends the answer back
-- to that chat, whichever process runs the session's mind and after a restart.
CREATE TABLE "channel_inbound" (
    "message_id" INTEGER NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "binding_id" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "channel_inbound_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "channel_inbound_session_id_idx" ON "channel_inbound"("session_id");
