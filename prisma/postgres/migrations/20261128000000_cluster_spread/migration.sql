-- Sessions spread over the cluster (issue 31, lib/engine/cluster-placement.ts): each member
-- declares a capacity (its weight in rendezvous hashing); each lease has an epoch, raised on every
-- move, that the mind's writes carry (the fencing token: a write with an older epoch is refused);
-- every move is recorded for the Cluster view.
ALTER TABLE "cluster_members" ADD COLUMN "capacity" DOUBLE PRECISION NOT NULL DEFAULT 1;
ALTER TABLE "cluster_members" ADD COLUMN "joined_at" TIMESTAMPTZ NOT NULL DEFAULT now();
-- A member that stopped gracefully (Ctrl-C): no longer live, its sessions taken at once, and the
-- moves recorded as "left" rather than "dead". The row goes after a lease time like a dead one's.
ALTER TABLE "cluster_members" ADD COLUMN "left_at" TIMESTAMPTZ;
ALTER TABLE "session_leases" ADD COLUMN "epoch" BIGINT NOT NULL DEFAULT 1;

CREATE TABLE "session_moves" (
    "id" BIGSERIAL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "from_owner" TEXT,
    "to_owner" TEXT NOT NULL,
    -- new | rebalance | left | dead
    "reason" TEXT NOT NULL,
    "moved_at" TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX "session_moves_moved_at_idx" ON "session_moves"("moved_at");
