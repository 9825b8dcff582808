-- Rights in one place (issue 58, ARCHITECTURE §26): what the owner widened or narrowed for one
-- person (by tool trait), whether a call is the owner's alone to decide (it would share a memory
-- with everyone), and each person's messages per day, counted whatever the entry (chat, door, group).
ALTER TABLE "people" ADD COLUMN "rights" TEXT;
ALTER TABLE "tool_calls" ADD COLUMN "owner_only" BOOLEAN NOT NULL DEFAULT false;
UPDATE "tool_calls" SET "owner_only" = true WHERE "name" = 'remember' AND "args" LIKE '%"scope":"shared"%';

CREATE TABLE "person_message_days" (
    "person_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "messages" INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY ("person_id", "day"),
    CONSTRAINT "person_message_days_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
