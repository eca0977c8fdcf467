/*  schedules.c: the schedules table, see schedules.h. */
#include "log.h"
#include "util.h"
#include "schedules.h"
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int
schedules_fire_row (store_t *store, const char *name, schedules_fire_t *out)
{
    IOF_ASSERT (store && name && out);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT plan, agents, overlap, "
        " (SELECT f.run_id FROM fires f JOIN runs r ON r.id = f.run_id "
        "  WHERE f.schedule = s.name AND r.status = 'queued' LIMIT 1) "
        "FROM schedules s WHERE name = ?");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = store_row (store, st, "read the schedule");
    if (rc != 1) {
        if (st)
            sqlite3_reset (st);
        return rc;
    }
    memset (out, 0, sizeof *out);
    str_copy (out->plan, sizeof out->plan, (const char *) sqlite3_column_text (st, 0));
    out->has_agents = sqlite3_column_type (st, 1) != SQLITE_NULL;
    if (out->has_agents)
        str_copy (out->agents, sizeof out->agents, (const char *) sqlite3_column_text (st, 1));
    str_copy (out->overlap, sizeof out->overlap, (const char *) sqlite3_column_text (st, 2));
    out->waiting = sqlite3_column_int64 (st, 3);
    sqlite3_reset (st);
    return 1;
}

int
schedules_set_next (store_t *store, const char *name, int64_t next)
{
    IOF_ASSERT (store && name);
    sqlite3_stmt *st = store_stmt (store, "UPDATE schedules SET next_fire = ? WHERE name = ?");
    sqlite3_bind_int64 (st, 1, next);
    sqlite3_bind_text (st, 2, name, -1, SQLITE_TRANSIENT);
    return store_step_done (store, st, "store the next fire");
}

json_t *
schedules_due (store_t *store, int64_t now)
{
    IOF_ASSERT (store);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT name, cron, tz, next_fire, catch_up FROM schedules WHERE next_fire <= ? "
        "ORDER BY next_fire, name");
    if (!st)
        return NULL;
    json_t *due = json_array ();
    sqlite3_bind_int64 (st, 1, now);
    while (store_row (store, st, "list the schedules due") == 1)
        json_array_append_new (due, json_pack ("{s:s, s:s, s:s, s:I, s:b}",
            "name", (const char *) sqlite3_column_text (st, 0),
            "cron", (const char *) sqlite3_column_text (st, 1),
            "tz", (const char *) sqlite3_column_text (st, 2),
            "next", (json_int_t) sqlite3_column_int64 (st, 3),
            "catch_up", sqlite3_column_int (st, 4)));
    sqlite3_reset (st);
    return due;
}

int
schedules_add (store_t *store, const schedules_def_t *def, char *err, size_t errlen)
{
    IOF_ASSERT (store && def && def->name && def->cron && def->tz && def->plan);
    IOF_ASSERT (def->baseline && def->overlap);
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO schedules (name, cron, tz, plan, agents, baseline, fail_on_regression, "
        " by_key, overlap, catch_up, created_at, next_fire) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!st) {
        snprintf (err, errlen, "%s", sqlite3_errmsg (store_db (store)));
        return -EIO;
    }
    sqlite3_bind_text (st, 1, def->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, def->cron, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 3, def->tz, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 4, def->plan, -1, SQLITE_TRANSIENT);
    if (def->agents)
        sqlite3_bind_text (st, 5, def->agents, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 6, def->baseline, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double (st, 7, def->fail_on_regression);
    if (def->by)
        sqlite3_bind_text (st, 8, def->by, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 9, def->overlap, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int (st, 10, def->catch_up);
    sqlite3_bind_int64 (st, 11, def->created_at);
    sqlite3_bind_int64 (st, 12, def->next_fire);
    if (sqlite3_step (st) != SQLITE_DONE) {
        int rc = sqlite3_extended_errcode (store_db (store));
        sqlite3_reset (st);
        if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
            return -EEXIST;
        snprintf (err, errlen, "%s", sqlite3_errmsg (store_db (store)));
        return -EIO;
    }
    sqlite3_reset (st);
    return 0;
}

json_t *
schedules_list (store_t *store)
{
    IOF_ASSERT (store);
    json_t *list = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT s.name, s.cron, s.tz, s.plan, s.agents, s.baseline, s.fail_on_regression, "
        " s.by_key, s.overlap, s.catch_up, s.next_fire, "
        " (SELECT f.due_at FROM fires f WHERE f.schedule = s.name ORDER BY f.id DESC LIMIT 1), "
        " (SELECT f.run_id FROM fires f WHERE f.schedule = s.name ORDER BY f.id DESC LIMIT 1), "
        " (SELECT f.verdict FROM fires f WHERE f.schedule = s.name ORDER BY f.id DESC LIMIT 1), "
        " (SELECT f.skipped FROM fires f WHERE f.schedule = s.name ORDER BY f.id DESC LIMIT 1) "
        "FROM schedules s ORDER BY s.name");
    int rc;
    while ((rc = store_row (store, st, "list the schedules")) == 1) {
        json_t *o = json_pack ("{s:s, s:s, s:s, s:s, s:s, s:f, s:s, s:b, s:I}",
            "name", (const char *) sqlite3_column_text (st, 0),
            "cron", (const char *) sqlite3_column_text (st, 1),
            "tz", (const char *) sqlite3_column_text (st, 2),
            "plan", (const char *) sqlite3_column_text (st, 3),
            "baseline", (const char *) sqlite3_column_text (st, 5),
            "fail_on_regression", sqlite3_column_double (st, 6),
            "overlap", (const char *) sqlite3_column_text (st, 8),
            "catch_up", sqlite3_column_int (st, 9),
            "next_fire", (json_int_t) sqlite3_column_int64 (st, 10));
        if (sqlite3_column_type (st, 4) != SQLITE_NULL)
            json_object_set_new (o, "agents", json_string ((const char *) sqlite3_column_text (st, 4)));
        if (sqlite3_column_type (st, 7) != SQLITE_NULL)
            json_object_set_new (o, "by", json_string ((const char *) sqlite3_column_text (st, 7)));
        if (sqlite3_column_type (st, 11) != SQLITE_NULL) {
            json_t *last = json_pack ("{s:I, s:s, s:s}",
                "due_at", (json_int_t) sqlite3_column_int64 (st, 11),
                "verdict", (const char *) sqlite3_column_text (st, 13),
                "skipped", (const char *) sqlite3_column_text (st, 14));
            if (sqlite3_column_type (st, 12) != SQLITE_NULL)
                json_object_set_new (last, "run", json_integer (sqlite3_column_int64 (st, 12)));
            json_object_set_new (o, "last_fire", last);
        }
        json_array_append_new (list, o);
    }
    if (st)
        sqlite3_reset (st);
    if (rc < 0) {
        json_decref (list);
        return NULL;
    }
    return list;
}

int
schedules_remove (store_t *store, const char *name, int *removed)
{
    IOF_ASSERT (store && name && removed);
    *removed = 0;
    sqlite3_stmt *st = store_stmt (store, "DELETE FROM schedules WHERE name = ?");
    sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
    if (store_step_done (store, st, "remove a schedule"))
        return -1;
    *removed = sqlite3_changes (store_db (store));
    return 0;
}

int
schedules_each (store_t *store, schedules_row_fn *fn, void *arg)
{
    IOF_ASSERT (store && fn);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT name, plan, next_fire, COALESCE(by_key, '') FROM schedules ORDER BY name");
    int rc;
    while ((rc = store_row (store, st, "read the schedules")) == 1) {
        schedules_row_t row = {
            .name = (const char *) sqlite3_column_text (st, 0),
            .plan = (const char *) sqlite3_column_text (st, 1),
            .next_fire = sqlite3_column_int64 (st, 2),
            .by = (const char *) sqlite3_column_text (st, 3),
        };
        fn (arg, &row);
    }
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}
