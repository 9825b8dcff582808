-- Untrusted content (issue 32, ARCHITECTURE §20): where a session's untrusted content came from,
-- why a call asks, which results and memories are untrusted.
ALTER TABLE "sessions" ADD COLUMN "untrusted_source" TEXT;
ALTER TABLE "tool_calls" ADD COLUMN "untrusted_reason" TEXT;
ALTER TABLE "tool_calls" ADD COLUMN "result_source" TEXT;
ALTER TABLE "memories" ADD COLUMN "untrusted_source" TEXT;
