-- 001_init: agents, plans, runs, steps, snapshots, results.
-- Times are ns since the epoch on the controller's clock.

CREATE TABLE agents (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    hostname      TEXT NOT NULL DEFAULT '',
    kernel        TEXT NOT NULL DEFAULT '',
    agent_version TEXT NOT NULL DEFAULT '',
    labels        TEXT NOT NULL DEFAULT '{}',   -- JSON object
    first_seen    INTEGER NOT NULL,
    last_seen     INTEGER NOT NULL
);

-- A plan name keeps every version ever added; runs point at one version.
CREATE TABLE plans (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    version    INTEGER NOT NULL,
    source     TEXT NOT NULL,                   -- file name it was added from
    text       TEXT NOT NULL,                   -- the job file as written
    steps      TEXT NOT NULL,                   -- JSON: parsed steps
    created_at INTEGER NOT NULL,
    UNIQUE (name, version)
);

CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    plan_id     INTEGER NOT NULL REFERENCES plans(id),
    status      TEXT NOT NULL CHECK (status IN ('queued','running','complete','partial','failed')),
    message     TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    started_at  INTEGER,
    finished_at INTEGER
);

CREATE TABLE run_agents (
    run_id   INTEGER NOT NULL REFERENCES runs(id),
    agent_id INTEGER NOT NULL REFERENCES agents(id),
    status   TEXT NOT NULL DEFAULT 'selected',
    message  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, agent_id)
);

CREATE TABLE steps (
    run_id      INTEGER NOT NULL REFERENCES runs(id),
    idx         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    spec        TEXT NOT NULL,                  -- JSON: the job as sent
    status      TEXT NOT NULL DEFAULT 'pending',
    start_at    INTEGER,                        -- planned start (controller clock)
    skew_ns     INTEGER,                        -- max - min of reported starts
    window_ns   INTEGER,                        -- measured window per agent
    finished_at INTEGER,
    PRIMARY KEY (run_id, idx)
);

-- Per agent and step: where it actually started and what it said.
CREATE TABLE step_agents (
    run_id       INTEGER NOT NULL,
    step_idx     INTEGER NOT NULL,
    agent_id     INTEGER NOT NULL,
    status       TEXT NOT NULL,                 -- prepared, refused, running, done, failed, lost
    message      TEXT NOT NULL DEFAULT '',
    targets      TEXT NOT NULL DEFAULT '[]',    -- JSON list of resolved paths
    actual_start INTEGER,
    snapshots    INTEGER NOT NULL DEFAULT 0,    -- as reported in DONE
    PRIMARY KEY (run_id, step_idx, agent_id)
);

CREATE TABLE snapshots (
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
    PRIMARY KEY (run_id, step_idx, agent_id, target, seq)
) WITHOUT ROWID;

-- Written when a step ends: one row per agent, target and direction.
CREATE TABLE results (
    run_id     INTEGER NOT NULL,
    step_idx   INTEGER NOT NULL,
    agent_id   INTEGER NOT NULL,
    target     TEXT NOT NULL,
    direction  TEXT NOT NULL CHECK (direction IN ('read','write')),
    ops        INTEGER NOT NULL,
    bytes      INTEGER NOT NULL,
    errors     INTEGER NOT NULL,
    window_ns  INTEGER NOT NULL,
    iops       REAL NOT NULL,
    bw         REAL NOT NULL,                   -- bytes per second
    lat_min    INTEGER NOT NULL,
    lat_max    INTEGER NOT NULL,
    lat_mean   REAL NOT NULL,
    lat_stddev REAL NOT NULL,
    snapshots  INTEGER NOT NULL,
    hist       BLOB NOT NULL,
    PRIMARY KEY (run_id, step_idx, agent_id, target, direction)
) WITHOUT ROWID;

-- The fleet merge of a step per direction.
CREATE TABLE fleet_results (
    run_id     INTEGER NOT NULL,
    step_idx   INTEGER NOT NULL,
    direction  TEXT NOT NULL CHECK (direction IN ('read','write')),
    agents     INTEGER NOT NULL,
    ops        INTEGER NOT NULL,
    bytes      INTEGER NOT NULL,
    errors     INTEGER NOT NULL,
    iops       REAL NOT NULL,                   -- sum of agent IOPS
    bw         REAL NOT NULL,                   -- sum of agent bandwidth
    hist       BLOB NOT NULL,                   -- merged histogram
    PRIMARY KEY (run_id, step_idx, direction)
) WITHOUT ROWID;

-- Messages refused at the socket, so bad input is counted, not just logged.
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
