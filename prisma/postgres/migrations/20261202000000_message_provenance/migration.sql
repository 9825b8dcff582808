-- Provenance on each message and summary (issue 44): a piece written from untrusted content says so
-- itself, and a session's mark now means only what its latest turn held. Messages a marked session
-- wrote after its mark keep it; the column that located them goes.
ALTER TABLE "messages" ADD COLUMN "untrusted_source" TEXT;
ALTER TABLE "context_summaries" ADD COLUMN "untrusted_source" TEXT;
UPDATE "messages" SET "untrusted_source" = (
  SELECT 'a message of the session "' || "s"."name" || '", written after it read ' || "s"."untrusted_source"
  FROM "sessions" AS "s" WHERE "s"."id" = "messages"."session_id"
) WHERE EXISTS (
  SELECT 1 FROM "sessions" AS "s" WHERE "s"."id" = "messages"."session_id" AND "s"."untrusted_source" IS NOT NULL AND "messages"."id" >= "s"."untrusted_from_message"
);
ALTER TABLE "sessions" DROP COLUMN "untrusted_from_message";
