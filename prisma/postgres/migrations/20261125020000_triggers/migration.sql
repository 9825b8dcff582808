-- Schedules and webhooks (issue 29, ARCHITECTURE §16): what wakes a mind at a time or on a call.
-- A slot is claimed by compare-and-set on next_fire_at, so one process fires it once.
CREATE TABLE "schedules" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "expression" TEXT NOT NULL,
    "time_zone" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "catch_up" TEXT NOT NULL DEFAULT 'once',
    "created_by" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "next_fire_at" TIMESTAMP(3),
    "last_fire_at" TIMESTAMP(3),
    "last_result" TEXT,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "schedules_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "schedules_state_next_fire_at_idx" ON "schedules"("state", "next_fire_at");
CREATE INDEX "schedules_session_id_idx" ON "schedules"("session_id");

CREATE TABLE "hooks" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "hooks_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "hooks_session_id_idx" ON "hooks"("session_id");

CREATE TABLE "hook_deliveries" (
    "id" SERIAL NOT NULL PRIMARY KEY,
    "hook_id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "hook_deliveries_hook_id_fkey" FOREIGN KEY ("hook_id") REFERENCES "hooks" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "hook_deliveries_hook_id_delivery_id_key" ON "hook_deliveries"("hook_id", "delivery_id");
