-- 009_spool: snapshots an agent's spool dropped unsent (it overflowed while
-- the controller was away), as the agent last reported them for the step;
-- and whether the agent restarted during the step (its workload stopped).
ALTER TABLE step_agents ADD COLUMN spool_dropped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE step_agents ADD COLUMN restarted INTEGER NOT NULL DEFAULT 0;
