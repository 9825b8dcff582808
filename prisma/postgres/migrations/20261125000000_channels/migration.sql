-- Channels (issue 28, ARCHITECTURE §15): Telegram bots and IRC connections, the strangers asking
-- to pair, the senders bound to sessions, the last update each channel handled, and the outbox
-- every message to a channel goes through (sent once, resent after a crash until confirmed).
CREATE TABLE "channels" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE "channel_pairings" (
    "code" TEXT NOT NULL PRIMARY KEY,
    "channel_id" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "sender_name" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "first_text" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "approved_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "channel_pairings_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "channel_pairings_channel_id_sender_idx" ON "channel_pairings"("channel_id", "sender");

CREATE TABLE "channel_bindings" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "channel_id" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "sender_name" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "session_id" TEXT,
    "persona" TEXT,
    "push" TEXT NOT NULL DEFAULT 'all',
    "quiet_hours" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "channel_bindings_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "channel_bindings_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "channel_bindings_channel_id_sender_key" ON "channel_bindings"("channel_id", "sender");
CREATE INDEX "channel_bindings_session_id_idx" ON "channel_bindings"("session_id");

CREATE TABLE "channel_offsets" (
    "channel_id" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE "channel_outbox" (
    "id" SERIAL NOT NULL PRIMARY KEY,
    "channel_id" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "provider_message_id" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMP(3),
    CONSTRAINT "channel_outbox_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "channel_outbox_state_next_at_idx" ON "channel_outbox"("state", "next_at");
