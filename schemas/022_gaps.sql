-- 022_gaps: what interrupted an agent's part of a step (issue 40), so the
-- report names it where the figures are.  One row per span of intervals
-- (seq from_seq..to_seq; to_seq -1: to the step's end) and cause:
--   stalled     the agent's process was stopped (SIGSTOP, SIGCONT): no I/O
--               issued; ns: how long, summed over the span's intervals
--   above_pace  a rate-limited job issued above its pace (its quota
--               catching up after a stall, as fio's rate does)
--   silent      the controller heard nothing from the agent, marked it lost
--               and heard from it again in the step; ns: how long
--   lost        marked lost and not heard from again in the step
--   restarted   its process restarted: the step's workload ended there
--   clock       the agent's wall clock stepped (ns: by how much, signed);
--               the step's times keep to its monotonic clock
-- Written by run/ (ingest.c, steps.c) through store/step_gaps.c and read
-- by report/step_gaps_report.c.
CREATE TABLE step_gaps (
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    step_idx  INTEGER NOT NULL,
    agent_id  INTEGER NOT NULL REFERENCES agents(id),
    cause     TEXT NOT NULL CHECK (cause IN ('stalled','above_pace','silent','lost','restarted',
                                        'clock')),
    from_seq  INTEGER NOT NULL,
    to_seq    INTEGER NOT NULL,
    ns        INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, step_idx, agent_id, cause, from_seq)
);
-- iofleet run --tolerate-gaps: a step whose agents all finished is
-- complete even when one was stalled or silent meanwhile (still listed).
ALTER TABLE runs ADD COLUMN tolerate_gaps INTEGER NOT NULL DEFAULT 0;
