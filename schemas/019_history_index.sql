-- 019_history_index: the figures iofleet history draws, per run, step and
-- key ('' the fleet; drive.firmware, drive.model, hba.firmware): the
-- step's sets as history computes them, trimmed to what it reads (JSON).
-- Written by the controller while idle (controller/history_index.c) for
-- runs that ended complete or partial, old runs included; history reads
-- a step from here when its row is, and computes it otherwise.
CREATE TABLE history_index (
    run_id   INTEGER NOT NULL,
    by_key   TEXT NOT NULL,
    step_idx INTEGER NOT NULL,
    figures  TEXT NOT NULL,
    PRIMARY KEY (run_id, by_key, step_idx)
) WITHOUT ROWID;
