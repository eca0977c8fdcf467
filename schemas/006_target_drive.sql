-- 006_target_drive: what each resolved target of a step is, from the
-- agent's inventory at PREPARE: JSON list aligned with step_agents.targets,
-- each {model, firmware, transport, serial, controller} or null (a file).
ALTER TABLE step_agents ADD COLUMN target_drives TEXT;
