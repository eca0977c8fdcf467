-- 013_trim: trims (fio's rw=trim, randtrim, trimwrite: BLKDISCARD) as a
-- third direction beside reads and writes.
-- results, fleet_results: direction may be 'trim'.  SQLite cannot alter a
-- CHECK, so each table is made again with its whole definition (001, and
-- the columns 002 and 007 added), its rows copied as they are.  Neither
-- has an index or trigger of its own to make again.  A trim row exists
-- only where there were trims (controller/report.c).
-- snapshots, fleet_intervals: the trim figures of an interval beside the
-- read and write ones, 0 (and NULL histograms) for every row before and
-- every step that trims nothing.  fio records no slat for trims; the
-- column is there so that every direction has the same columns.

CREATE TABLE results_013 (
    run_id      INTEGER NOT NULL,
    step_idx    INTEGER NOT NULL,
    agent_id    INTEGER NOT NULL,
    target      TEXT NOT NULL,
    direction   TEXT NOT NULL CHECK (direction IN ('read','write','trim')),
    ops         INTEGER NOT NULL,
    bytes       INTEGER NOT NULL,
    errors      INTEGER NOT NULL,
    window_ns   INTEGER NOT NULL,
    iops        REAL NOT NULL,
    bw          REAL NOT NULL,                  -- bytes per second
    lat_min     INTEGER NOT NULL,
    lat_max     INTEGER NOT NULL,
    lat_mean    REAL NOT NULL,
    lat_stddev  REAL NOT NULL,
    snapshots   INTEGER NOT NULL,
    hist        BLOB NOT NULL,
    slat_hist   BLOB,
    lat_hist    BLOB,
    percentiles TEXT,
    PRIMARY KEY (run_id, step_idx, agent_id, target, direction)
) WITHOUT ROWID;
INSERT INTO results_013 (run_id, step_idx, agent_id, target, direction, ops, bytes, errors,
    window_ns, iops, bw, lat_min, lat_max, lat_mean, lat_stddev, snapshots, hist, slat_hist,
    lat_hist, percentiles)
  SELECT run_id, step_idx, agent_id, target, direction, ops, bytes, errors, window_ns, iops, bw,
    lat_min, lat_max, lat_mean, lat_stddev, snapshots, hist, slat_hist, lat_hist, percentiles
  FROM results;
DROP TABLE results;
ALTER TABLE results_013 RENAME TO results;

CREATE TABLE fleet_results_013 (
    run_id      INTEGER NOT NULL,
    step_idx    INTEGER NOT NULL,
    direction   TEXT NOT NULL CHECK (direction IN ('read','write','trim')),
    agents      INTEGER NOT NULL,
    ops         INTEGER NOT NULL,
    bytes       INTEGER NOT NULL,
    errors      INTEGER NOT NULL,
    iops        REAL NOT NULL,                  -- sum of agent IOPS
    bw          REAL NOT NULL,                  -- sum of agent bandwidth
    hist        BLOB NOT NULL,                  -- merged histogram
    slat_hist   BLOB,
    lat_hist    BLOB,
    percentiles TEXT,
    PRIMARY KEY (run_id, step_idx, direction)
) WITHOUT ROWID;
INSERT INTO fleet_results_013 (run_id, step_idx, direction, agents, ops, bytes, errors, iops,
    bw, hist, slat_hist, lat_hist, percentiles)
  SELECT run_id, step_idx, direction, agents, ops, bytes, errors, iops, bw, hist, slat_hist,
    lat_hist, percentiles
  FROM fleet_results;
DROP TABLE fleet_results;
ALTER TABLE fleet_results_013 RENAME TO fleet_results;

ALTER TABLE snapshots ADD COLUMN trim_ops INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshots ADD COLUMN trim_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshots ADD COLUMN trim_errors INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshots ADD COLUMN trim_hist BLOB;
ALTER TABLE snapshots ADD COLUMN trim_slat_hist BLOB;
ALTER TABLE snapshots ADD COLUMN trim_lat_hist BLOB;

ALTER TABLE fleet_intervals ADD COLUMN trim_ops INTEGER NOT NULL DEFAULT 0;
ALTER TABLE fleet_intervals ADD COLUMN trim_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE fleet_intervals ADD COLUMN trim_hist BLOB;
