-- Tasks (issue 16, ARCHITECTURE §11): a goal the agent pursues over autonomous steps, with its
-- limits, plan, usage and outcome; the trace id every row it causes carries.
CREATE TABLE "tasks" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "goal" TEXT NOT NULL,
    "context" TEXT,
    "constraints" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT '[]',
    "steps_used" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_usd" REAL NOT NULL DEFAULT 0,
    "cost_unknown" BOOLEAN NOT NULL DEFAULT false,
    "result" TEXT,
    "error" TEXT,
    "blocked_on" TEXT,
    "trace_id" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" DATETIME,
    "finished_at" DATETIME,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "tasks_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "tasks_session_id_status_idx" ON "tasks"("session_id", "status");

-- A turn run as a task's step; its calls carry the task too.
ALTER TABLE "agent_turns" ADD COLUMN "task_id" TEXT;
-- The task whose step made the model call.
ALTER TABLE "llm_calls" ADD COLUMN "trace_id" TEXT;
