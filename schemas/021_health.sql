-- 021_health: each target's drive health before and after a step
-- (common/health.h's records, READY's and DONE's, checked and rewritten by
-- the controller): JSON lists aligned with step_agents.targets, each a
-- record ({"available": false, "reason": ...} where the drive has none).
-- NULL: the agent sent none (a release before 0.4.0, or no DONE).  The
-- per-interval temperature is in the snapshot blocks (temperature_mc of
-- the snapshots table).
ALTER TABLE step_agents ADD COLUMN health_before TEXT;
ALTER TABLE step_agents ADD COLUMN health_after TEXT;
