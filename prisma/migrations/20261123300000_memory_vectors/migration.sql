-- Memory, second part (issue 17): vectors for hybrid recall when an embeddings endpoint is set,
-- and a record of each consolidation the Subconscious runs while the user is away (its hourly cap
-- is counted from here). A vector goes with its item: triggers delete it with the memory or the
-- message, and when a memory's text changes (it is embedded again).
CREATE TABLE "memory_vectors" (
    "item_kind" TEXT NOT NULL,
    "item_id" INTEGER NOT NULL,
    "persona_name" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "dims" INTEGER NOT NULL,
    "vector" BLOB NOT NULL,
    PRIMARY KEY ("item_kind", "item_id", "model")
);
CREATE INDEX "memory_vectors_persona_name_model_idx" ON "memory_vectors"("persona_name", "model");
CREATE TRIGGER "memories_vectors_delete" AFTER DELETE ON "memories" BEGIN
  DELETE FROM "memory_vectors" WHERE "item_kind" = 'memory' AND "item_id" = old.id;
END;
CREATE TRIGGER "memories_vectors_update" AFTER UPDATE OF content ON "memories" BEGIN
  DELETE FROM "memory_vectors" WHERE "item_kind" = 'memory' AND "item_id" = old.id;
END;
CREATE TRIGGER "messages_vectors_delete" AFTER DELETE ON "messages" BEGIN
  DELETE FROM "memory_vectors" WHERE "item_kind" = 'message' AND "item_id" = old.id;
END;

CREATE TABLE "consolidations" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "session_id" TEXT NOT NULL,
    "persona_name" TEXT NOT NULL,
    "from_message_id" INTEGER NOT NULL,
    "through_message_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "facts_added" INTEGER NOT NULL DEFAULT 0,
    "facts_superseded" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_usd" REAL,
    "error" TEXT,
    "started_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" DATETIME,
    CONSTRAINT "consolidations_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "consolidations_session_id_id_idx" ON "consolidations"("session_id", "id");
CREATE INDEX "consolidations_started_at_idx" ON "consolidations"("started_at");
