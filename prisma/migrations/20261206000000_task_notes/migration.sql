-- Lines for a task's trace from outside its steps (issue 60): "continued after an upgrade from …",
-- or why a run could not continue in a new version.
ALTER TABLE "tasks" ADD COLUMN "notes" TEXT NOT NULL DEFAULT '[]';
