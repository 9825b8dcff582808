-- Specialists (issue 34): a task delegated by another task, in a session started for it.
ALTER TABLE "tasks" ADD COLUMN "parent_task_id" TEXT REFERENCES "tasks" ("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "tasks_parent_task_id_idx" ON "tasks"("parent_task_id");
ALTER TABLE "sessions" ADD COLUMN "parent_session_id" TEXT REFERENCES "sessions" ("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "sessions_parent_session_id_idx" ON "sessions"("parent_session_id");
