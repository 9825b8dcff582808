-- What the SQLite migrations add beside the Prisma models, in PostgreSQL's terms (issue 19):
-- full-text search over memories and over what was said in sessions (SQLite: FTS5 tables kept by
-- triggers; here: generated tsvector columns with GIN indexes, English stemming like FTS5's
-- porter), and a vector deleted with its memory or message, or when a memory's text changes.
ALTER TABLE "memories" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (to_tsvector('english', "content")) STORED;
CREATE INDEX "memories_search_idx" ON "memories" USING GIN ("search");

ALTER TABLE "messages" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
  CASE WHEN "tag" IN ('ED_user', 'ED_agent') THEN to_tsvector('english', "content") END
) STORED;
CREATE INDEX "messages_search_idx" ON "messages" USING GIN ("search");

CREATE FUNCTION "agentcsd_drop_memory_vector"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "memory_vectors" WHERE "item_kind" = 'memory' AND "item_id" = OLD."id";
  RETURN NULL;
END $$;
CREATE FUNCTION "agentcsd_drop_message_vector"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "memory_vectors" WHERE "item_kind" = 'message' AND "item_id" = OLD."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "memories_vectors_delete" AFTER DELETE ON "memories" FOR EACH ROW EXECUTE FUNCTION "agentcsd_drop_memory_vector"();
CREATE TRIGGER "memories_vectors_update" AFTER UPDATE OF "content" ON "memories" FOR EACH ROW EXECUTE FUNCTION "agentcsd_drop_memory_vector"();
CREATE TRIGGER "messages_vectors_delete" AFTER DELETE ON "messages" FOR EACH ROW EXECUTE FUNCTION "agentcsd_drop_message_vector"();
