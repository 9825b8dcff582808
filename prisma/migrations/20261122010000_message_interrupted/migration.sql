-- A reply the user stopped, or that a backend cut off, is kept (the user saw it) but marked so
-- it is never mistaken for a complete one.
ALTER TABLE "messages" ADD COLUMN "interrupted" BOOLEAN NOT NULL DEFAULT false;

-- Unanswered user messages are found by turn_id IS NULL when a session resumes.
CREATE INDEX "messages_session_id_tag_turn_id_idx" ON "messages"("session_id", "tag", "turn_id");
