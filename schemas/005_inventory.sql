-- 005_inventory: the hardware each agent reported, kept immutable and
-- deduplicated by hash, and which inventory each run saw.
CREATE TABLE inventories (
    id         INTEGER PRIMARY KEY,
    agent_id   INTEGER NOT NULL REFERENCES agents(id),
    hash       TEXT NOT NULL,
    json       TEXT NOT NULL,
    first_seen INTEGER NOT NULL,
    UNIQUE (agent_id, hash)
);

-- The agent's latest inventory (from HELLO or READY).
ALTER TABLE agents ADD COLUMN inventory_id INTEGER REFERENCES inventories(id);

-- The inventory an agent had when it prepared a step of a run.
CREATE TABLE run_inventory (
    run_id       INTEGER NOT NULL,
    agent_id     INTEGER NOT NULL,
    step_idx     INTEGER NOT NULL,
    inventory_id INTEGER NOT NULL REFERENCES inventories(id),
    PRIMARY KEY (run_id, agent_id, step_idx)
) WITHOUT ROWID;
