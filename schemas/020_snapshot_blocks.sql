-- 020_snapshot_blocks: per-interval data stored one row per agent and
-- interval, compressed (controller/snapshot_codec.c), instead of one row
-- per target: about 5 times smaller (docs/design.md, Compact
-- per-interval storage).  The table snapshots of schemas 1-19 becomes
-- snapshots_v19; the controller converts its rows into blocks right after
-- this migration (with progress; the upgrade's backup was written
-- before), then drops it.  Readers see the same rows as before through
-- the virtual table snapshots (controller/snapshot_table.c).
ALTER TABLE snapshots RENAME TO snapshots_v19;
-- A rowid table: a block (about 2.3 KiB for 24 drives) stays on its page
-- (a WITHOUT ROWID row that size would spill to overflow pages).
CREATE TABLE snapshot_blocks (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL,
    step_idx  INTEGER NOT NULL,
    agent_id  INTEGER NOT NULL,
    seq       INTEGER NOT NULL,
    targets   INTEGER NOT NULL,     -- target-intervals in it
    dict_id   INTEGER NOT NULL,     -- snapshot_dicts.id; 0: zstd without one
    data      BLOB NOT NULL
);
CREATE UNIQUE INDEX snapshot_blocks_key ON snapshot_blocks (run_id, step_idx, agent_id, seq);
-- zstd dictionaries, trained on the database's own blocks; never removed
-- (blocks name theirs).
CREATE TABLE snapshot_dicts (
    id         INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    samples    INTEGER NOT NULL,
    dict       BLOB NOT NULL
);
