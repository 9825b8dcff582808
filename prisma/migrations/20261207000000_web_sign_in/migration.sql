-- People on the web (issue 61, ARCHITECTURE §27): passkeys, signed-in browsers, one-time invites
-- and the devices that allowed notifications. Secrets are stored as sha256 only.
CREATE TABLE "passkeys" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "person_id" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "counter" INTEGER NOT NULL DEFAULT 0,
    "transports" TEXT NOT NULL DEFAULT '[]',
    "name" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" DATETIME,
    CONSTRAINT "passkeys_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "passkeys_person_id_idx" ON "passkeys"("person_id");

CREATE TABLE "web_sessions" (
    "id_hash" TEXT NOT NULL PRIMARY KEY,
    "person_id" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "user_agent" TEXT NOT NULL DEFAULT '',
    "passkey_id" TEXT,
    CONSTRAINT "web_sessions_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "web_sessions_person_id_idx" ON "web_sessions"("person_id");

CREATE TABLE "invites" (
    "token_hash" TEXT NOT NULL PRIMARY KEY,
    "person_id" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "used_at" DATETIME,
    CONSTRAINT "invites_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "invites_person_id_idx" ON "invites"("person_id");

CREATE TABLE "push_subscriptions" (
    "endpoint" TEXT NOT NULL PRIMARY KEY,
    "person_id" TEXT NOT NULL,
    "p256dh" TEXT NOT NULL,
    "auth" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "push_subscriptions_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "push_subscriptions_person_id_idx" ON "push_subscriptions"("person_id");
