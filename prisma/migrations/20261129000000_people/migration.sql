-- People (issue 42, ARCHITECTURE §21): who talks to the agent, their identities on the channels,
-- and the people each session's conversation belongs to. What exists belongs to the owner; each
-- sender bound today becomes a person (trusted: they could approve cards before), and their
-- persona binding now means their own session of the persona.
CREATE TABLE "people" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'guest',
    "limits" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE "person_identities" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "person_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "person_identities_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "person_identities_sender_key" ON "person_identities"("sender");
CREATE INDEX "person_identities_person_id_idx" ON "person_identities"("person_id");

CREATE TABLE "session_people" (
    "session_id" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "joined_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY ("session_id", "person_id"),
    CONSTRAINT "session_people_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "session_people_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "session_people_person_id_idx" ON "session_people"("person_id");

ALTER TABLE "channel_bindings" ADD COLUMN "person_id" TEXT REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "people" ("id", "name", "role") VALUES ('owner', 'Owner', 'owner');
INSERT INTO "session_people" ("session_id", "person_id") SELECT "id", 'owner' FROM "sessions";
INSERT INTO "people" ("id", "name", "role") SELECT 'p:' || "sender", MIN("sender_name"), 'trusted' FROM "channel_bindings" GROUP BY "sender";
INSERT INTO "person_identities" ("id", "person_id", "kind", "sender", "name")
  SELECT 'i:' || "sender", 'p:' || "sender", substr("sender", 1, instr("sender", ':') - 1), "sender", MIN("sender_name") FROM "channel_bindings" GROUP BY "sender";
UPDATE "channel_bindings" SET "person_id" = 'p:' || "sender";
INSERT OR IGNORE INTO "session_people" ("session_id", "person_id") SELECT "session_id", "person_id" FROM "channel_bindings" WHERE "session_id" IS NOT NULL;
