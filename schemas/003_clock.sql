-- 003_clock: where each agent's clock stood when a step started.
-- clock_offset_ns: controller = agent + offset (the agent's estimate);
-- clock_delay_ns: round trip of the sample behind it (uncertainty = delay/2).
ALTER TABLE step_agents ADD COLUMN clock_offset_ns INTEGER;
ALTER TABLE step_agents ADD COLUMN clock_delay_ns INTEGER;
