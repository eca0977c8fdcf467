-- 002_latency_split: fio's three latencies.  The existing hist columns
-- keep clat (completion latency, the default figure); slat (submission)
-- and lat (total) come beside them.  Rows from before stay readable with
-- NULL in the new columns.

ALTER TABLE snapshots ADD COLUMN read_slat_hist BLOB;
ALTER TABLE snapshots ADD COLUMN read_lat_hist BLOB;
ALTER TABLE snapshots ADD COLUMN write_slat_hist BLOB;
ALTER TABLE snapshots ADD COLUMN write_lat_hist BLOB;

ALTER TABLE results ADD COLUMN slat_hist BLOB;
ALTER TABLE results ADD COLUMN lat_hist BLOB;

ALTER TABLE fleet_results ADD COLUMN slat_hist BLOB;
ALTER TABLE fleet_results ADD COLUMN lat_hist BLOB;
