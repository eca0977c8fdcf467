-- 011_fleet_intervals: the fleet's time series of a step, kept as the
-- snapshots are stored (in the same transaction; controller/series.c):
-- interval seq merged over every agent and target that delivered it.
-- Reports and the live status read these rows instead of every snapshot.
-- Runs stored before this schema have none; their reports compute the
-- series from the snapshots, as before.
CREATE TABLE fleet_intervals (
    run_id      INTEGER NOT NULL,
    step_idx    INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    agents      INTEGER NOT NULL,   -- agents whose snapshot seq is in
    t_start     INTEGER NOT NULL,   -- earliest start of those snapshots
    t_end       INTEGER NOT NULL,   -- latest end
    span_ns     INTEGER NOT NULL,   -- sum over the agents of t_end - t_start
    read_ops    INTEGER NOT NULL,
    read_bytes  INTEGER NOT NULL,
    read_hist   BLOB,               -- completion latency, merged
    write_ops   INTEGER NOT NULL,
    write_bytes INTEGER NOT NULL,
    write_hist  BLOB,
    PRIMARY KEY (run_id, step_idx, seq)
) WITHOUT ROWID;
