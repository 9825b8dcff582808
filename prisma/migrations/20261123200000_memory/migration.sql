-- Memory that outlives a session (issue 17, ARCHITECTURE §12): memories per persona, and full-text
-- indexes over them and over the conversation (every session's ED_user / ED_agent), kept in step
-- by triggers whoever writes. Both indexes delete securely: a forgotten text leaves no trace.
CREATE TABLE "memories" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "persona_name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "importance" REAL NOT NULL DEFAULT 0.5,
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "session_id" TEXT,
    "task_id" TEXT,
    "source_message_ids" TEXT NOT NULL DEFAULT '[]',
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME,
    "valid_to" DATETIME,
    "superseded_by" INTEGER
);
CREATE UNIQUE INDEX "memories_persona_name_scope_content_hash_key" ON "memories"("persona_name", "scope", "content_hash");
CREATE INDEX "memories_persona_name_kind_idx" ON "memories"("persona_name", "kind");
CREATE INDEX "memories_session_id_idx" ON "memories"("session_id");

CREATE VIRTUAL TABLE "memory_fts" USING fts5(content, content='memories', content_rowid='id', tokenize='porter unicode61');
INSERT INTO "memory_fts"("memory_fts", "rank") VALUES ('secure-delete', 1);
CREATE TRIGGER "memories_fts_insert" AFTER INSERT ON "memories" BEGIN
  INSERT INTO "memory_fts"(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER "memories_fts_delete" AFTER DELETE ON "memories" BEGIN
  INSERT INTO "memory_fts"("memory_fts", rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER "memories_fts_update" AFTER UPDATE OF content ON "memories" BEGIN
  INSERT INTO "memory_fts"("memory_fts", rowid, content) VALUES ('delete', old.id, old.content);
  INSERT INTO "memory_fts"(rowid, content) VALUES (new.id, new.content);
END;

CREATE VIRTUAL TABLE "message_fts" USING fts5(content, content='messages', content_rowid='id', tokenize='porter unicode61');
INSERT INTO "message_fts"("message_fts", "rank") VALUES ('secure-delete', 1);
INSERT INTO "message_fts"(rowid, content) SELECT id, content FROM "messages" WHERE tag IN ('ED_user', 'ED_agent');
CREATE TRIGGER "messages_fts_insert" AFTER INSERT ON "messages" WHEN new.tag IN ('ED_user', 'ED_agent') BEGIN
  INSERT INTO "message_fts"(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER "messages_fts_delete" AFTER DELETE ON "messages" WHEN old.tag IN ('ED_user', 'ED_agent') BEGIN
  INSERT INTO "message_fts"("message_fts", rowid, content) VALUES ('delete', old.id, old.content);
END;
