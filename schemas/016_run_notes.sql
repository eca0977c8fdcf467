-- 016_run_notes: what an operator says of a run and of a plan's life.
-- runs.note: free text given with `iofleet run PLAN --note TEXT` (the
-- labels of `--label KEY=VALUE` go in runs.labels, added by 007 for
-- imports: one home for a run's labels, whoever made the run).
-- plans.removed_at: `iofleet plan rm NAME` on a plan that runs point at
-- keeps its versions (the runs' reports need their steps) and hides the
-- name from `plan list` and `run`; adding the name again brings it back.
ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT '';
ALTER TABLE plans ADD COLUMN removed_at INTEGER;
