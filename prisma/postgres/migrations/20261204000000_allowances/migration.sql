-- Daily allowances (issue 48, ARCHITECTURE §24): per app, persona or person, in dollars and/or
-- tokens, per local day; each day's reserved (calls in flight, their worst case) and spent.
CREATE TABLE "allowances" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scope" TEXT NOT NULL,
    "scope_id" TEXT NOT NULL,
    "usd_per_day" DOUBLE PRECISION,
    "tokens_per_day" INTEGER,
    "time_zone" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "allowances_scope_scope_id_key" ON "allowances"("scope", "scope_id");

CREATE TABLE "allowance_days" (
    "allowance_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "reserved_usd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "spent_usd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "reserved_tokens" INTEGER NOT NULL DEFAULT 0,
    "spent_tokens" INTEGER NOT NULL DEFAULT 0,
    "noticed_at" TIMESTAMP(3),
    PRIMARY KEY ("allowance_id", "day"),
    CONSTRAINT "allowance_days_allowance_id_fkey" FOREIGN KEY ("allowance_id") REFERENCES "allowances" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
