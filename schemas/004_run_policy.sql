-- 004_run_policy: how many agents a run needs at each step.
-- min_agents: a step with fewer agents READY fails the run (0 = any one);
-- require_all: every selected agent must be READY at every step.
ALTER TABLE runs ADD COLUMN min_agents INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN require_all INTEGER NOT NULL DEFAULT 0;
