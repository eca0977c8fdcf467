-- 018_planned: what each target of a size-bound step (precondition,
-- purge, write saturation) is to move, as the agent's READY said
-- (planned_bytes): a JSON array of bytes, one per target in the order of
-- step_agents.targets; NULL where READY gave none.  Kept so that a
-- controller restarted during the step still shows each drive's progress
-- (the bytes moved so far are the step's stored snapshots).
ALTER TABLE step_agents ADD COLUMN target_planned TEXT;
