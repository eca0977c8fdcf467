-- 010_schedules: nightly runs and their verdicts.
-- schedules: a cron expression (five fields, in time zone tz) that queues
-- a run of plan on agents; next_fire is the next due time (Unix seconds).
-- fires: every time a schedule fell due: the run it queued, or why not;
-- after the run, its verdict against the baseline and the hook's outcome.
-- regressions: the significant changes for the worse a fire found.
-- runs.intervals_dropped_at: gc removed the run's per-interval snapshots.
CREATE TABLE schedules (
    name               TEXT PRIMARY KEY,
    cron               TEXT NOT NULL,
    tz                 TEXT NOT NULL DEFAULT 'UTC',
    plan               TEXT NOT NULL,
    agents             TEXT,
    baseline           TEXT NOT NULL DEFAULT 'last-pass',   -- or a run id
    fail_on_regression REAL NOT NULL DEFAULT 10,
    by_key             TEXT,                              -- report --by for the comparison
    overlap            TEXT NOT NULL DEFAULT 'wait' CHECK (overlap IN ('wait','skip')),
    catch_up           INTEGER NOT NULL DEFAULT 1,
    created_at         INTEGER NOT NULL,
    next_fire          INTEGER NOT NULL
);
CREATE TABLE fires (
    id          INTEGER PRIMARY KEY,
    schedule    TEXT NOT NULL,
    due_at      INTEGER NOT NULL,          -- the cron time (Unix seconds)
    fired_at    INTEGER NOT NULL,          -- when it was handled (Unix seconds)
    kind        TEXT NOT NULL CHECK (kind IN ('scheduled','catch-up','manual')),
    run_id      INTEGER REFERENCES runs(id),
    skipped     TEXT NOT NULL DEFAULT '',  -- why no run was queued
    baseline_run INTEGER,
    verdict     TEXT NOT NULL DEFAULT '' CHECK (verdict IN ('','pass','regressed','failed',
                                                            'no-baseline','unjudged')),
    hook_status TEXT NOT NULL DEFAULT ''
);
CREATE INDEX fires_schedule ON fires (schedule, id);
CREATE INDEX fires_run ON fires (run_id);
CREATE TABLE regressions (
    id          INTEGER PRIMARY KEY,
    fire_id     INTEGER NOT NULL REFERENCES fires(id),
    schedule    TEXT NOT NULL,
    run_id      INTEGER NOT NULL,
    baseline_run INTEGER NOT NULL,
    step        TEXT NOT NULL,
    grp         TEXT NOT NULL,
    metric      TEXT NOT NULL,
    a           REAL NOT NULL,
    b           REAL NOT NULL,
    delta_pct   REAL NOT NULL,
    significant INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL            -- Unix seconds
);
CREATE INDEX regressions_time ON regressions (recorded_at);
ALTER TABLE runs ADD COLUMN intervals_dropped_at INTEGER;
