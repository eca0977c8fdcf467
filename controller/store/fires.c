/*  fires.c: the fires table, see fires.h. */
#include "log.h"
#include "util.h"
#include "fires.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

int
fires_add (store_t *store, const char *name, int64_t due_at, int64_t fired_at,
           const char *kind, int64_t run, const char *skipped, int64_t *id)
{
    IOF_ASSERT (store && name && kind && skipped && id);
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO fires (schedule, due_at, fired_at, kind, run_id, skipped) "
        "VALUES (?, ?, ?, ?, ?, ?)");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, due_at);
    sqlite3_bind_int64 (st, 3, fired_at);
    sqlite3_bind_text (st, 4, kind, -1, SQLITE_STATIC);
    if (run)
        sqlite3_bind_int64 (st, 5, run);
    sqlite3_bind_text (st, 6, skipped, -1, SQLITE_TRANSIENT);
    int rc = store_step_done (store, st, "record a fire");
    *id = sqlite3_last_insert_rowid (store_db (store));
    return rc;
}

int
fires_skipped (store_t *store, int64_t id, char *buf, size_t len)
{
    IOF_ASSERT (store && buf && len);
    sqlite3_stmt *st = store_stmt (store, "SELECT skipped FROM fires WHERE id = ?");
    sqlite3_bind_int64 (st, 1, id);
    int rc = store_row (store, st, "read why the fire was skipped");
    if (rc == 1)
        snprintf (buf, len, "%s", (const char *) sqlite3_column_text (st, 0));
    if (st)
        sqlite3_reset (st);
    return rc;
}

int
fires_of_run (store_t *store, int64_t run, fires_judge_t *out)
{
    IOF_ASSERT (store && out);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT f.id, f.schedule, s.baseline, s.fail_on_regression, s.by_key, s.plan FROM fires f "
        "LEFT JOIN schedules s ON s.name = f.schedule WHERE f.run_id = ?");
    sqlite3_bind_int64 (st, 1, run);
    int rc = store_row (store, st, "find the run's schedule");
    if (rc != 1) {
        if (st)
            sqlite3_reset (st);
        return rc;
    }
    memset (out, 0, sizeof *out);
    out->id = sqlite3_column_int64 (st, 0);
    str_copy (out->schedule, sizeof out->schedule, (const char *) sqlite3_column_text (st, 1));
    out->removed = sqlite3_column_type (st, 2) == SQLITE_NULL;     /* schedule rm since */
    if (!out->removed) {
        str_copy (out->baseline, sizeof out->baseline, (const char *) sqlite3_column_text (st, 2));
        str_copy (out->plan, sizeof out->plan, (const char *) sqlite3_column_text (st, 5));
    }
    out->fail_pct = sqlite3_column_double (st, 3);
    if (sqlite3_column_type (st, 4) != SQLITE_NULL)
        str_copy (out->by, sizeof out->by, (const char *) sqlite3_column_text (st, 4));
    sqlite3_reset (st);
    return 1;
}

int
fires_last_pass (store_t *store, const char *schedule, int64_t before, const char *plan,
                 int64_t *run)
{
    IOF_ASSERT (store && schedule && plan && run);
    /* Of this plan: a schedule removed and added again under the same
       name for another plan does not compare across plans. */
    sqlite3_stmt *st = store_stmt (store,
        "SELECT f.run_id FROM fires f JOIN runs r ON r.id = f.run_id "
        "JOIN plans p ON p.id = r.plan_id WHERE f.schedule = ? AND f.id < ? "
        "AND f.verdict IN ('pass', 'no-baseline') AND p.name = ? ORDER BY f.id DESC LIMIT 1");
    sqlite3_bind_text (st, 1, schedule, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, before);
    sqlite3_bind_text (st, 3, plan, -1, SQLITE_TRANSIENT);
    int rc = store_row (store, st, "find the baseline run");
    *run = rc == 1 ? sqlite3_column_int64 (st, 0) : 0;
    if (st)
        sqlite3_reset (st);
    return rc;
}

int
fires_set_verdict (store_t *store, int64_t id, const char *verdict, int64_t baseline,
                   const char *hook_status)
{
    IOF_ASSERT (store && verdict && hook_status);
    sqlite3_stmt *st = store_stmt (store,
        "UPDATE fires SET verdict = ?, baseline_run = ?, hook_status = ? WHERE id = ?");
    sqlite3_bind_text (st, 1, verdict, -1, SQLITE_TRANSIENT);
    if (baseline)
        sqlite3_bind_int64 (st, 2, baseline);
    sqlite3_bind_text (st, 3, hook_status, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 4, id);
    return store_step_done (store, st, "record the verdict");
}

int
fires_hook_pending (store_t *store, json_t **out)
{
    IOF_ASSERT (store && out);
    *out = NULL;
    sqlite3_stmt *st = store_stmt (store,
        "SELECT id, schedule, run_id, baseline_run FROM fires WHERE hook_status = 'pending' "
        "ORDER BY id LIMIT 1");
    int rc = store_row (store, st, "find a pending hook");
    if (rc == 1)
        *out = json_pack ("{s:I, s:s, s:I, s:I}",
                          "fire", (json_int_t) sqlite3_column_int64 (st, 0),
                          "schedule", (const char *) sqlite3_column_text (st, 1),
                          "run", (json_int_t) sqlite3_column_int64 (st, 2),
                          "baseline", (json_int_t) sqlite3_column_int64 (st, 3));
    if (st)
        sqlite3_reset (st);
    return rc;
}

int
fires_set_hook (store_t *store, int64_t id, const char *status)
{
    IOF_ASSERT (store && status);
    sqlite3_stmt *st = store_stmt (store, "UPDATE fires SET hook_status = ? WHERE id = ?");
    sqlite3_bind_text (st, 1, status, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, id);
    return store_step_done (store, st, "record the hook");
}

int
fires_hooks_interrupted (store_t *store)
{
    IOF_ASSERT (store);
    sqlite3_stmt *st = store_stmt (store,
        "UPDATE fires SET hook_status = 'interrupted: the controller stopped while it ran' "
        "WHERE hook_status = 'running'");
    return store_step_done (store, st, "close interrupted hooks");
}

int
fires_latest (store_t *store, const char *schedule, int64_t *due_at, bool *skipped)
{
    IOF_ASSERT (store && schedule && due_at && skipped);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT due_at, run_id IS NULL FROM fires WHERE schedule = ? ORDER BY id DESC LIMIT 1");
    sqlite3_bind_text (st, 1, schedule, -1, SQLITE_TRANSIENT);
    int rc = store_row (store, st, "read a schedule's latest fire");
    if (rc == 1) {
        *due_at = sqlite3_column_int64 (st, 0);
        *skipped = sqlite3_column_int (st, 1) != 0;
    }
    if (st)
        sqlite3_reset (st);
    return rc;
}

int
fires_latest_judged (store_t *store, const char *schedule, int64_t *id, int64_t *run,
                     char *verdict, size_t verdict_len, bool *complete)
{
    IOF_ASSERT (store && schedule && id && run && verdict && verdict_len && complete);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT f.id, f.run_id, f.verdict, r.status FROM fires f JOIN runs r ON r.id = f.run_id "
        "WHERE f.schedule = ? AND f.verdict != '' ORDER BY f.id DESC LIMIT 1");
    sqlite3_bind_text (st, 1, schedule, -1, SQLITE_TRANSIENT);
    int rc = store_row (store, st, "read a schedule's latest judged run");
    if (rc == 1) {
        *id = sqlite3_column_int64 (st, 0);
        *run = sqlite3_column_int64 (st, 1);
        snprintf (verdict, verdict_len, "%s", (const char *) sqlite3_column_text (st, 2));
        *complete = strcmp ((const char *) sqlite3_column_text (st, 3), "complete") == 0;
    }
    if (st)
        sqlite3_reset (st);
    return rc;
}
