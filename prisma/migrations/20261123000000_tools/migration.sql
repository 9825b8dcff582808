-- Tools with confirmation (issue 15, ARCHITECTURE §10): each step of a turn that called tools,
-- each call (committed before its card is shown), and the always-allow / deny rules.
CREATE TABLE "agent_turns" (
    "turn_id" TEXT NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "spontaneous" BOOLEAN NOT NULL DEFAULT false,
    "cycle_number" INTEGER NOT NULL,
    "answering" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "agent_turns_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "agent_turns_session_id_status_idx" ON "agent_turns"("session_id", "status");

CREATE TABLE "agent_steps" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "assistant_text" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "agent_steps_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "agent_steps_session_id_turn_id_step_key" ON "agent_steps"("session_id", "turn_id", "step");

CREATE TABLE "tool_calls" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "task_id" TEXT,
    "trace_id" TEXT,
    "step" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "provider_call_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "args" TEXT,
    "args_hash" TEXT NOT NULL,
    "approval" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "decision" TEXT,
    "result" TEXT,
    "is_error" BOOLEAN NOT NULL DEFAULT false,
    "exit_code" INTEGER,
    "dropped_bytes" INTEGER NOT NULL DEFAULT 0,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" DATETIME,
    "started_at" DATETIME,
    "finished_at" DATETIME,
    CONSTRAINT "tool_calls_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "tool_calls_session_id_turn_id_provider_call_id_key" ON "tool_calls"("session_id", "turn_id", "provider_call_id");
CREATE INDEX "tool_calls_session_id_status_idx" ON "tool_calls"("session_id", "status");
CREATE INDEX "tool_calls_session_id_turn_id_step_idx" ON "tool_calls"("session_id", "turn_id", "step");

CREATE TABLE "tool_rules" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scope" TEXT NOT NULL,
    "session_id" TEXT,
    "persona_name" TEXT,
    "tool" TEXT NOT NULL,
    "effect" TEXT NOT NULL,
    "matcher" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "tool_rules_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "tool_rules_scope_persona_name_idx" ON "tool_rules"("scope", "persona_name");
CREATE INDEX "tool_rules_session_id_idx" ON "tool_rules"("session_id");
