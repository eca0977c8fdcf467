-- 012_snapshots_by_interval: snapshots keyed (run, step, agent, seq,
-- target) instead of (..., target, seq).  Every second each agent adds
-- one row per target for the same seq; in this order those rows are
-- neighbours, so a thousand agents' snapshots touch about a thousand
-- pages a second, not one page per target (24,000 for 24 drives each),
-- which had the WAL grow by every such page at each commit and the
-- working set outgrow the page cache (docs/benchmarks.md, fleet scale).
-- Queries by agent, or by agent and seq, use the same prefix as before.
CREATE TABLE snapshots_by_interval (
    run_id       INTEGER NOT NULL,
    step_idx     INTEGER NOT NULL,
    agent_id     INTEGER NOT NULL,
    target       INTEGER NOT NULL,              -- index into step_agents.targets
    seq          INTEGER NOT NULL,
    t_start      INTEGER NOT NULL,
    t_end        INTEGER NOT NULL,
    read_ops     INTEGER NOT NULL,
    read_bytes   INTEGER NOT NULL,
    read_errors  INTEGER NOT NULL,
    read_hist    BLOB,
    write_ops    INTEGER NOT NULL,
    write_bytes  INTEGER NOT NULL,
    write_errors INTEGER NOT NULL,
    write_hist   BLOB,
    read_slat_hist BLOB, read_lat_hist BLOB, write_slat_hist BLOB, write_lat_hist BLOB,
    PRIMARY KEY (run_id, step_idx, agent_id, seq, target)
) WITHOUT ROWID;
INSERT INTO snapshots_by_interval (run_id, step_idx, agent_id, target, seq, t_start, t_end,
    read_ops, read_bytes, read_errors, read_hist, write_ops, write_bytes, write_errors,
    write_hist, read_slat_hist, read_lat_hist, write_slat_hist, write_lat_hist)
  SELECT run_id, step_idx, agent_id, target, seq, t_start, t_end, read_ops, read_bytes,
    read_errors, read_hist, write_ops, write_bytes, write_errors, write_hist, read_slat_hist,
    read_lat_hist, write_slat_hist, write_lat_hist FROM snapshots;
DROP TABLE snapshots;
ALTER TABLE snapshots_by_interval RENAME TO snapshots;
