/*  gc.c: dropping runs' per-interval snapshots: which runs may lose them
    (the one rule, for iofleet gc and for the retention policy), a bounded
    batch of the drop, and the admin command gc, which drops them all and
    then VACUUMs.  Results and merged histograms stay; baselines keep
    theirs.
*/
#include "controller.h"
#include "log.h"
#include "util.h"
#include "gc.h"
#include "runs.h"
#include "store.h"

/* Blocks (agent-intervals) one gc_drop deletes at most: about
   24,000 target-intervals at 24 drives, a few ms of the loop. */
#define DROP_BATCH_BLOCKS  1000

static int64_t
db_bytes (ctl_t *ctl)
{
    int64_t pages, page_size;
    store_size (ctl->store, &pages, &page_size);
    return pages * page_size;
}

int
gc_expire (ctl_t *ctl, int64_t keep_s, int64_t keep_runs)
{
    IOF_ASSERT (keep_s >= 0 || keep_runs >= 0);
    if (!store_in_tx (ctl->store))
        store_begin (ctl->store);
    /* A run keeps its intervals while it is within every limit given:
       ended less than keep_s ago, and among the newest keep_runs runs of
       iofleet's that ended (imported fio results have no intervals: they
       do not push a run out).  -1 leaves a limit out (the bound below
       never drops). */
    sqlite3_stmt *st = store_stmt (ctl->store,
        "UPDATE runs SET intervals_dropped_at = ?1 WHERE intervals_dropped_at IS NULL "
        "AND status NOT IN ('queued', 'running') "
        "AND (COALESCE(finished_at, created_at) < ?2 OR id NOT IN (SELECT r.id FROM runs r "
        "  WHERE r.status NOT IN ('queued', 'running') AND r.origin = 'iofleet' "
        "  ORDER BY r.id DESC LIMIT ?3)) "
        "AND EXISTS (SELECT 1 FROM snapshot_blocks s WHERE s.run_id = runs.id) "
        /* Baselines keep their series: significance is judged against them. */
        "AND NOT EXISTS (SELECT 1 FROM schedules s WHERE s.baseline = CAST(runs.id AS TEXT)) "
        "AND NOT EXISTS (SELECT 1 FROM schedules s WHERE runs.id = (SELECT f.run_id FROM fires f "
        "  WHERE f.schedule = s.name AND f.verdict IN ('pass', 'no-baseline') "
        "  ORDER BY f.id DESC LIMIT 1))");
    int64_t now = (int64_t) clock_real_ns ();
    sqlite3_bind_int64 (st, 1, now);
    sqlite3_bind_int64 (st, 2, keep_s >= 0 ? now - keep_s * (int64_t) NS_PER_SEC : INT64_MIN);
    sqlite3_bind_int64 (st, 3, keep_runs >= 0 ? keep_runs : -1);   /* LIMIT -1: all */
    if (store_step_done (ctl->store, st, "mark runs whose intervals expired"))
        return -1;
    return sqlite3_changes (store_db (ctl->store));
}

int64_t
gc_drop (ctl_t *ctl, int64_t *run)
{
    if (!store_in_tx (ctl->store))
        store_begin (ctl->store);
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT id FROM runs WHERE intervals_dropped_at IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM snapshot_blocks s WHERE s.run_id = runs.id) "
        "ORDER BY id LIMIT 1");
    int rc = store_row (ctl->store, st, "find a run whose intervals go");
    *run = rc == 1 ? sqlite3_column_int64 (st, 0) : 0;
    if (st)
        sqlite3_reset (st);
    if (rc != 1)
        return rc < 0 ? -1 : 0;
    /* The key DROP_BATCH_BLOCKS blocks in: the batch is what lies before
       it (a range of the key), or the rest of the run. */
    st = store_stmt (ctl->store,
        "SELECT step_idx, agent_id, seq FROM snapshot_blocks WHERE run_id = ? "
        "ORDER BY step_idx, agent_id, seq LIMIT 1 OFFSET ?");
    sqlite3_bind_int64 (st, 1, *run);
    sqlite3_bind_int64 (st, 2, DROP_BATCH_BLOCKS);
    rc = store_row (ctl->store, st, "find a batch of snapshots to drop");
    if (rc < 0) {
        if (st)
            sqlite3_reset (st);
        return -1;
    }
    int64_t key[3] = { 0 };
    for (int i = 0; rc == 1 && i < 3; i++)
        key[i] = sqlite3_column_int64 (st, i);
    sqlite3_reset (st);
    /* The target-intervals in the batch: what the policy reports. */
    sqlite3_stmt *cnt = store_stmt (ctl->store, rc == 1
        ? "SELECT COALESCE(SUM(targets), 0) FROM snapshot_blocks WHERE run_id = ? "
          "AND (step_idx, agent_id, seq) < (?, ?, ?)"
        : "SELECT COALESCE(SUM(targets), 0) FROM snapshot_blocks WHERE run_id = ?");
    sqlite3_stmt *del = store_stmt (ctl->store, rc == 1
        ? "DELETE FROM snapshot_blocks WHERE run_id = ? AND (step_idx, agent_id, seq) < (?, ?, ?)"
        : "DELETE FROM snapshot_blocks WHERE run_id = ?");
    if (!cnt || !del)
        return -1;
    sqlite3_bind_int64 (cnt, 1, *run);
    sqlite3_bind_int64 (del, 1, *run);
    for (int i = 0; rc == 1 && i < 3; i++) {
        sqlite3_bind_int64 (cnt, 2 + i, key[i]);
        sqlite3_bind_int64 (del, 2 + i, key[i]);
    }
    int crc = store_row (ctl->store, cnt, "count a batch of snapshots to drop");
    int64_t rows = crc == 1 ? sqlite3_column_int64 (cnt, 0) : 0;
    sqlite3_reset (cnt);
    if (crc < 0 || store_step_done (ctl->store, del, "drop a batch of snapshots"))
        return -1;
    return rows > 0 ? rows : sqlite3_changes (store_db (ctl->store));
}

/* Drops per-interval snapshots of runs that ended more than keep_s ago;
   results and merged histograms stay.  Then VACUUM gives the space back. */
json_t *
gc_run (ctl_t *ctl, json_t *req, char *err, size_t errlen)
{
    json_t *keep = json_object_get (req, "keep_intervals_s");
    if (!json_is_integer (keep) || json_integer_value (keep) < 0) {
        snprintf (err, errlen, "gc needs --keep-intervals AGE, e.g. 30d");
        return NULL;
    }
    int64_t busy;
    if (runs_busy (ctl->store, &busy)) {
        snprintf (err, errlen, "run %lld is queued or running; gc pauses the controller while it "
                  "compacts the database: run it between runs", (long long) busy);
        return NULL;
    }
    uint64_t t0 = clock_mono_ns ();
    int64_t before = db_bytes (ctl);
    if (store_commit (ctl->store)) {
        snprintf (err, errlen, "database error before gc; see the log");
        return NULL;
    }
    int runs = gc_expire (ctl, json_integer_value (keep), -1);
    int64_t rows = 0, n = 0, run;
    while (runs >= 0 && (n = gc_drop (ctl, &run)) > 0)
        rows += n;
    if (runs < 0 || n < 0 || store_commit (ctl->store)) {
        snprintf (err, errlen, "gc stopped on a database error (see the log); what it had "
                  "dropped is dropped, the rest stays");
        return NULL;
    }
    char *msg = NULL;
    if (sqlite3_exec (store_db (ctl->store), "VACUUM", NULL, NULL, &msg) != SQLITE_OK
        || sqlite3_exec (store_db (ctl->store), "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL,
                         NULL) != SQLITE_OK) {
        log_warn ("gc: VACUUM failed: %s; the space is reused, not given back", msg ? msg : "?");
        sqlite3_free (msg);
    }
    int64_t after = db_bytes (ctl);
    double ms = (double) (clock_mono_ns () - t0) / 1e6;
    log_info ("gc: per-interval snapshots of %d run(s) ended over %lld s ago dropped (%lld "
              "rows); database %lld -> %lld bytes in %.0f ms", runs,
              (long long) json_integer_value (keep), (long long) rows, (long long) before,
              (long long) after, ms);
    return json_pack ("{s:i, s:I, s:I, s:I, s:f}", "runs", runs, "snapshot_rows",
                      (json_int_t) rows, "bytes_before", (json_int_t) before, "bytes_after",
                      (json_int_t) after, "ms", ms);
}
