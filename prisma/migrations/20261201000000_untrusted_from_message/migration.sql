-- Provenance on content (issue 44): a session's messages written before untrusted content entered it
-- stay trusted where other sessions recall them. Sessions marked before this column existed keep
-- every message untrusted (0), as before.
ALTER TABLE "sessions" ADD COLUMN "untrusted_from_message" INTEGER NOT NULL DEFAULT 0;
