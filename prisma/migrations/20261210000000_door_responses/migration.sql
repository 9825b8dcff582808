-- The Responses door's responses (issue 78 §1): GET /v1/responses/:id and previous_response_id.
CREATE TABLE "door_responses" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "key_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "door_responses_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "door_responses_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "door_responses_key_id_idx" ON "door_responses"("key_id");
CREATE INDEX "door_responses_session_id_idx" ON "door_responses"("session_id");
