/*  gc.c: the admin command gc: per-interval snapshots of runs that ended
    long ago are dropped (results and merged histograms stay; baselines
    keep theirs), then VACUUM gives the space back.
*/
#include "controller.h"
#include "log.h"
#include "util.h"

static int64_t
db_bytes (ctl_t *ctl)
{
    int64_t pages, page_size;
    store_size (ctl->store, &pages, &page_size);
    return pages * page_size;
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
    if (runner_busy (ctl, &busy)) {
        snprintf (err, errlen, "run %lld is queued or running; gc pauses the controller while it "
                  "compacts the database: run it between runs", (long long) busy);
        return NULL;
    }
    uint64_t t0 = clock_mono_ns ();
    int64_t before = db_bytes (ctl);
    int64_t cutoff_ns = (int64_t) clock_real_ns () - json_integer_value (keep) * (int64_t) NS_PER_SEC;
    if (store_commit (ctl->store)) {
        snprintf (err, errlen, "database error before gc; see the log");
        return NULL;
    }
    store_begin (ctl->store);
    sqlite3_stmt *st = store_stmt (ctl->store,
        "UPDATE runs SET intervals_dropped_at = ? WHERE intervals_dropped_at IS NULL "
        "AND status NOT IN ('queued', 'running') AND COALESCE(finished_at, created_at) < ? "
        "AND EXISTS (SELECT 1 FROM snapshots s WHERE s.run_id = runs.id) "
        /* Baselines keep their series: significance is judged against them. */
        "AND NOT EXISTS (SELECT 1 FROM schedules s WHERE s.baseline = CAST(runs.id AS TEXT)) "
        "AND NOT EXISTS (SELECT 1 FROM schedules s WHERE runs.id = (SELECT f.run_id FROM fires f "
        "  WHERE f.schedule = s.name AND f.verdict IN ('pass', 'no-baseline') "
        "  ORDER BY f.id DESC LIMIT 1))");
    sqlite3_bind_int64 (st, 1, (sqlite3_int64) clock_real_ns ());
    sqlite3_bind_int64 (st, 2, cutoff_ns);
    int runs = 0;
    if (store_step_done (ctl->store, st, "gc: mark runs") == 0)
        runs = sqlite3_changes (store_db (ctl->store));
    st = store_stmt (ctl->store,
        "DELETE FROM snapshots WHERE run_id IN (SELECT id FROM runs WHERE "
        "intervals_dropped_at IS NOT NULL)");
    int64_t rows = 0;
    if (store_step_done (ctl->store, st, "gc: drop snapshots") == 0)
        rows = sqlite3_changes (store_db (ctl->store));
    if (store_commit (ctl->store)) {
        snprintf (err, errlen, "gc could not commit (database error; see the log); nothing "
                  "was removed");
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
