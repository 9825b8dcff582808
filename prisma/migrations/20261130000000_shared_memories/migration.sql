-- Memory shared on purpose (issue 42 §3): a memory is private to the people of its session until the
-- owner marks it shared (or approves the agent's `remember` with the shared scope). The same text is
-- one memory per owner — the people of its session — so remembering it in Bob's conversation never
-- answers "already remembered" with Alice's memory.
ALTER TABLE "memories" ADD COLUMN "shared" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "memories" ADD COLUMN "owner_key" TEXT NOT NULL DEFAULT '';
UPDATE "memories" SET "owner_key" = COALESCE((
    SELECT group_concat("person_id", ',') FROM (SELECT "person_id" FROM "session_people" WHERE "session_people"."session_id" = "memories"."session_id" ORDER BY "person_id")
), '') WHERE "session_id" IS NOT NULL;
DROP INDEX "memories_persona_name_scope_content_hash_key";
CREATE UNIQUE INDEX "memories_persona_name_scope_owner_key_content_hash_key" ON "memories"("persona_name", "scope", "owner_key", "content_hash");
