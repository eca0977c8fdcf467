-- 014_latency_depth: what fio's latency_target found.  The agent searches
-- the deepest queue depth whose latency_percentile of latencies within
-- latency_window stays under the target, and its DONE says, per job of
-- the step, the depth it settled at (Done.latency_depth).  One row per
-- agent and job that found one (depth >= 1); none for a step without a
-- target, so every other step, and every run before this, reports as it
-- did.  job_idx is the job's place in the step: 0 its first job (the
-- step's "job" in steps.spec), then the others in the plan's order.
CREATE TABLE latency_depths (
    run_id    INTEGER NOT NULL,
    step_idx  INTEGER NOT NULL,
    agent_id  INTEGER NOT NULL,
    job_idx   INTEGER NOT NULL,
    depth     INTEGER NOT NULL CHECK (depth >= 1),
    PRIMARY KEY (run_id, step_idx, agent_id, job_idx)
) WITHOUT ROWID;
