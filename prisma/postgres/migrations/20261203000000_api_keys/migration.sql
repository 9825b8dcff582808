-- Keys for the doors (issue 46, ARCHITECTURE §23): an outside client acting as one person on the
-- personas its key names, and the session it talks to per persona.
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "personas" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),
    CONSTRAINT "api_keys_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "api_key_sessions" (
    "key_id" TEXT NOT NULL,
    "persona_name" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "last_conversation" TEXT,
    "last_message_id" INTEGER,
    PRIMARY KEY ("key_id", "persona_name"),
    CONSTRAINT "api_key_sessions_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "api_key_sessions_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "api_key_sessions_session_id_idx" ON "api_key_sessions"("session_id");
