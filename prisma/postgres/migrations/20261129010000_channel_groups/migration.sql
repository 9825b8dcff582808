-- Group chats (issue 42 §5): a group the agent was asked into, with its one session and the person
-- that stands for the group.
CREATE TABLE "channel_groups" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "channel_id" TEXT NOT NULL,
    "group_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "answer" TEXT NOT NULL DEFAULT 'mentions',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "channel_groups_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "channel_groups_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "channel_groups_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "people" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "channel_groups_channel_id_group_id_key" ON "channel_groups"("channel_id", "group_id");
