-- The Prisma models of prisma/schema.prisma on PostgreSQL (issue 19). Produced offline with
-- `prisma migrate diff --from-empty --to-schema-datamodel prisma/postgres/schema.prisma --script`
-- (Prisma 6.19.3's wasm engine, docs/architecture.md "Migrations offline"). SQLite-only parts of
-- prisma/migrations (FTS5 tables, triggers) have no twin here yet.
-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_activity_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "persona_name" TEXT NOT NULL,
    "persona_hash" TEXT NOT NULL,
    "model_config" TEXT NOT NULL,
    "params" TEXT NOT NULL,
    "status" TEXT NOT NULL,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" SERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "layer" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cycle_number" INTEGER,
    "turn_id" TEXT,
    "spontaneous" BOOLEAN NOT NULL DEFAULT false,
    "interrupted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mood_and_criteria" (
    "id" SERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "mood" TEXT NOT NULL,
    "criteria" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cycle_number" INTEGER NOT NULL,

    CONSTRAINT "mood_and_criteria_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "context_summaries" (
    "id" SERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "layer" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "from_cycle" INTEGER NOT NULL,
    "to_cycle" INTEGER NOT NULL,

    CONSTRAINT "context_summaries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "llm_calls" (
    "id" SERIAL NOT NULL,
    "session_id" TEXT,
    "layer" TEXT NOT NULL,
    "backend" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "first_token_ms" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cache_read_tokens" INTEGER NOT NULL DEFAULT 0,
    "cache_write_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_usd" DOUBLE PRECISION,
    "finish_reason" TEXT,
    "error" TEXT,
    "trace_id" TEXT,

    CONSTRAINT "llm_calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "settings" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "settings_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "agent_turns" (
    "turn_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "spontaneous" BOOLEAN NOT NULL DEFAULT false,
    "cycle_number" INTEGER NOT NULL,
    "answering" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "task_id" TEXT,

    CONSTRAINT "agent_turns_pkey" PRIMARY KEY ("turn_id")
);

-- CreateTable
CREATE TABLE "agent_steps" (
    "id" SERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "assistant_text" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_calls" (
    "id" TEXT NOT NULL,
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
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" TIMESTAMP(3),
    "started_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),

    CONSTRAINT "tool_calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_rules" (
    "id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "session_id" TEXT,
    "persona_name" TEXT,
    "tool" TEXT NOT NULL,
    "effect" TEXT NOT NULL,
    "matcher" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tool_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "goal" TEXT NOT NULL,
    "context" TEXT,
    "constraints" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT '[]',
    "steps_used" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_usd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "cost_unknown" BOOLEAN NOT NULL DEFAULT false,
    "result" TEXT,
    "error" TEXT,
    "blocked_on" TEXT,
    "trace_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memories" (
    "id" SERIAL NOT NULL,
    "persona_name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "importance" DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "session_id" TEXT,
    "task_id" TEXT,
    "source_message_ids" TEXT NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3),
    "valid_to" TIMESTAMP(3),
    "superseded_by" INTEGER,

    CONSTRAINT "memories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memory_vectors" (
    "item_kind" TEXT NOT NULL,
    "item_id" INTEGER NOT NULL,
    "persona_name" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "dims" INTEGER NOT NULL,
    "vector" BYTEA NOT NULL,

    CONSTRAINT "memory_vectors_pkey" PRIMARY KEY ("item_kind","item_id","model")
);

-- CreateTable
CREATE TABLE "consolidations" (
    "id" SERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "persona_name" TEXT NOT NULL,
    "from_message_id" INTEGER NOT NULL,
    "through_message_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "facts_added" INTEGER NOT NULL DEFAULT 0,
    "facts_superseded" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_usd" DOUBLE PRECISION,
    "error" TEXT,
    "started_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMP(3),

    CONSTRAINT "consolidations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "capability_graphs" (
    "persona_name" TEXT NOT NULL,
    "graph" TEXT NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "capability_graphs_pkey" PRIMARY KEY ("persona_name")
);

-- CreateTable
CREATE TABLE "session_capabilities" (
    "session_id" TEXT NOT NULL,
    "graph" TEXT NOT NULL,
    "from_default" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "session_capabilities_pkey" PRIMARY KEY ("session_id")
);

-- CreateIndex
CREATE INDEX "sessions_last_activity_at_idx" ON "sessions"("last_activity_at");

-- CreateIndex
CREATE INDEX "messages_session_id_layer_id_idx" ON "messages"("session_id", "layer", "id");

-- CreateIndex
CREATE INDEX "messages_session_id_id_idx" ON "messages"("session_id", "id");

-- CreateIndex
CREATE INDEX "messages_session_id_tag_turn_id_idx" ON "messages"("session_id", "tag", "turn_id");

-- CreateIndex
CREATE INDEX "mood_and_criteria_session_id_id_idx" ON "mood_and_criteria"("session_id", "id");

-- CreateIndex
CREATE INDEX "context_summaries_session_id_layer_id_idx" ON "context_summaries"("session_id", "layer", "id");

-- CreateIndex
CREATE INDEX "llm_calls_session_id_layer_idx" ON "llm_calls"("session_id", "layer");

-- CreateIndex
CREATE INDEX "agent_turns_session_id_status_idx" ON "agent_turns"("session_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "agent_steps_session_id_turn_id_step_key" ON "agent_steps"("session_id", "turn_id", "step");

-- CreateIndex
CREATE INDEX "tool_calls_session_id_status_idx" ON "tool_calls"("session_id", "status");

-- CreateIndex
CREATE INDEX "tool_calls_session_id_turn_id_step_idx" ON "tool_calls"("session_id", "turn_id", "step");

-- CreateIndex
CREATE UNIQUE INDEX "tool_calls_session_id_turn_id_provider_call_id_key" ON "tool_calls"("session_id", "turn_id", "provider_call_id");

-- CreateIndex
CREATE INDEX "tool_rules_scope_persona_name_idx" ON "tool_rules"("scope", "persona_name");

-- CreateIndex
CREATE INDEX "tool_rules_session_id_idx" ON "tool_rules"("session_id");

-- CreateIndex
CREATE INDEX "tasks_session_id_status_idx" ON "tasks"("session_id", "status");

-- CreateIndex
CREATE INDEX "memories_persona_name_kind_idx" ON "memories"("persona_name", "kind");

-- CreateIndex
CREATE INDEX "memories_session_id_idx" ON "memories"("session_id");

-- CreateIndex
CREATE UNIQUE INDEX "memories_persona_name_scope_content_hash_key" ON "memories"("persona_name", "scope", "content_hash");

-- CreateIndex
CREATE INDEX "memory_vectors_persona_name_model_idx" ON "memory_vectors"("persona_name", "model");

-- CreateIndex
CREATE INDEX "consolidations_session_id_id_idx" ON "consolidations"("session_id", "id");

-- CreateIndex
CREATE INDEX "consolidations_started_at_idx" ON "consolidations"("started_at");

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mood_and_criteria" ADD CONSTRAINT "mood_and_criteria_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "context_summaries" ADD CONSTRAINT "context_summaries_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "llm_calls" ADD CONSTRAINT "llm_calls_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_turns" ADD CONSTRAINT "agent_turns_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_steps" ADD CONSTRAINT "agent_steps_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_calls" ADD CONSTRAINT "tool_calls_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_rules" ADD CONSTRAINT "tool_rules_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "consolidations" ADD CONSTRAINT "consolidations_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_capabilities" ADD CONSTRAINT "session_capabilities_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

