/*  regressions.c: the regressions table, see regressions.h. */
#include "log.h"
#include "util.h"
#include "regressions.h"
#include "store.h"

int
regressions_add (store_t *store, const regressions_row_t *row)
{
    IOF_ASSERT (store && row && row->schedule);
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO regressions (fire_id, schedule, run_id, baseline_run, step, "
        " grp, metric, a, b, delta_pct, significant, recorded_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)");
    sqlite3_bind_int64 (st, 1, row->fire_id);
    sqlite3_bind_text (st, 2, row->schedule, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 3, row->run);
    sqlite3_bind_int64 (st, 4, row->baseline);
    sqlite3_bind_text (st, 5, row->step, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 6, row->group, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 7, row->metric, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double (st, 8, row->a);
    sqlite3_bind_double (st, 9, row->b);
    sqlite3_bind_double (st, 10, row->delta_pct);
    sqlite3_bind_int64 (st, 11, row->now);
    return store_step_done (store, st, "record a regression");
}

int
regressions_of_fire (store_t *store, int64_t fire_id, bool significant, json_t *into)
{
    IOF_ASSERT (store && json_is_array (into));
    sqlite3_stmt *st = store_stmt (store, significant
        ? "SELECT step, grp, metric, a, b, delta_pct FROM regressions WHERE fire_id = ? "
          "AND significant ORDER BY id"
        : "SELECT step, grp, metric, a, b, delta_pct FROM regressions WHERE fire_id = ? "
          "ORDER BY id");
    sqlite3_bind_int64 (st, 1, fire_id);
    int rc;
    while ((rc = store_row (store, st, significant ? "read a run's regressions"
                                                   : "read a fire's regressions")) == 1)
        json_array_append_new (into, json_pack (
            "{s:s, s:s, s:s, s:f, s:f, s:f}", "step", (const char *) sqlite3_column_text (st, 0),
            "group", (const char *) sqlite3_column_text (st, 1),
            "metric", (const char *) sqlite3_column_text (st, 2),
            "a", sqlite3_column_double (st, 3), "b", sqlite3_column_double (st, 4),
            "delta_pct", sqlite3_column_double (st, 5)));
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

json_t *
regressions_list (store_t *store, int64_t since, const char *schedule)
{
    IOF_ASSERT (store);
    json_t *list = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT r.schedule, r.run_id, r.baseline_run, r.step, r.grp, r.metric, r.a, r.b, "
        " r.delta_pct, r.recorded_at, f.hook_status FROM regressions r "
        "JOIN fires f ON f.id = r.fire_id WHERE r.recorded_at >= ? "
        "AND (?2 IS NULL OR r.schedule = ?2) ORDER BY r.id DESC");
    sqlite3_bind_int64 (st, 1, since);
    if (schedule)
        sqlite3_bind_text (st, 2, schedule, -1, SQLITE_TRANSIENT);
    while (store_row (store, st, "list the regressions") == 1)
        json_array_append_new (list, json_pack (
            "{s:s, s:I, s:I, s:s, s:s, s:s, s:f, s:f, s:f, s:I, s:s}",
            "schedule", (const char *) sqlite3_column_text (st, 0),
            "run", (json_int_t) sqlite3_column_int64 (st, 1),
            "baseline", (json_int_t) sqlite3_column_int64 (st, 2),
            "step", (const char *) sqlite3_column_text (st, 3),
            "group", (const char *) sqlite3_column_text (st, 4),
            "metric", (const char *) sqlite3_column_text (st, 5),
            "a", sqlite3_column_double (st, 6), "b", sqlite3_column_double (st, 7),
            "delta_pct", sqlite3_column_double (st, 8),
            "recorded_at", (json_int_t) sqlite3_column_int64 (st, 9),
            "hook", (const char *) sqlite3_column_text (st, 10)));
    if (st)
        sqlite3_reset (st);
    return list;
}
