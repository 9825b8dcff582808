-- The version each member runs (issue 60, lib/engine/app-version.ts): the Cluster page shows it, and
-- a durable run of a version no live member runs is carried onto the running one.
ALTER TABLE "cluster_members" ADD COLUMN "app_version" TEXT;
