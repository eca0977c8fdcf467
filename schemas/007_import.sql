-- 007_import: runs imported from fio's JSON output beside iofleet's own.
-- runs.origin: 'iofleet', or 'fio' for an import (then import_hash tells
-- a file imported twice); runs.labels: the --label k=v of the import, which
-- group and filter its results like an agent's labels.
-- agents.imported: 1 for the hosts of imported results ("fio:HOST"), which
-- never connect and are not listed among the fleet's agents.
-- results/fleet_results.percentiles: fio's own clat percentiles (JSON, keys
-- "p99", "p99.9", ..., ns); the only latency figures of an import without
-- json+ bins, whose histogram columns then hold the empty histogram.
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'iofleet';
ALTER TABLE runs ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN import_hash TEXT;
CREATE INDEX runs_import_hash ON runs (import_hash) WHERE import_hash IS NOT NULL;
CREATE INDEX runs_created ON runs (created_at);
ALTER TABLE agents ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN percentiles TEXT;
ALTER TABLE fleet_results ADD COLUMN percentiles TEXT;
