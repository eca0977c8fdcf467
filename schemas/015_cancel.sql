-- 015_cancel: `iofleet cancel RUN` ends a queued or running run.
-- runs.status may be 'cancelled'; runs.cancelled_by is who asked (USER@HOST
-- as the CLI sends it) and runs.cancelled_at when (ns since the epoch,
-- controller clock).  What the run's agents delivered before it stays, and
-- the step in hand gets its results from that; steps not begun are
-- 'cancelled' too.
-- SQLite cannot alter a CHECK, so runs is made again with its whole
-- definition (001, and the columns 004, 007 and 010 added), its rows
-- copied as they are, and its indexes (007) made again.  run_agents,
-- steps and fires reference runs(id): with foreign keys on, dropping runs
-- orphans their rows for a moment, so the check waits for the commit
-- (defer_foreign_keys, reset at COMMIT), by which time every row has its
-- run again.
PRAGMA defer_foreign_keys = ON;
CREATE TABLE runs_015 AS SELECT * FROM runs;
DROP TABLE runs;
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    plan_id     INTEGER NOT NULL REFERENCES plans(id),
    status      TEXT NOT NULL CHECK (status IN ('queued','running','complete','partial','failed',
                                                'cancelled')),
    message     TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    started_at  INTEGER,
    finished_at INTEGER,
    min_agents  INTEGER NOT NULL DEFAULT 0,
    require_all INTEGER NOT NULL DEFAULT 0,
    origin      TEXT NOT NULL DEFAULT 'iofleet',
    labels      TEXT NOT NULL DEFAULT '{}',
    import_hash TEXT,
    intervals_dropped_at INTEGER,
    cancelled_by TEXT,
    cancelled_at INTEGER
);
INSERT INTO runs (id, plan_id, status, message, created_at, started_at, finished_at, min_agents,
    require_all, origin, labels, import_hash, intervals_dropped_at)
  SELECT id, plan_id, status, message, created_at, started_at, finished_at, min_agents,
    require_all, origin, labels, import_hash, intervals_dropped_at
  FROM runs_015;
DROP TABLE runs_015;
CREATE INDEX runs_import_hash ON runs (import_hash) WHERE import_hash IS NOT NULL;
CREATE INDEX runs_created ON runs (created_at);
