/*  test_read_errors.c: the controller's read path (report.c, groups.c,
    history.c, with series.c and the store, on a database of its own)
    says a read that failed, never answers as if there were nothing; so
    do store_row and the records the loop lists (runs, plans).

    Before store_row, a query whose step failed looked like one without
    rows: a report whose results table could not be read showed the step's
    agents without a target, the steps of a run that could not be read
    made an empty history.  Here the tables those queries read are renamed
    away after a first, good answer (so the cached statements' step is
    what fails), and each answer must be the error the admin command
    returns: "database error reading run N; see the controller's log".
*/
#include "controller.h"
#include "history.h"
#include "report.h"
#include "testutil.h"
#include "store_fx.h"
#include "plans.h"
#include "runs.h"
#include "fleet.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run 1 of plan "p": one step "rr" on agent "a" with one target that
   read 1000 ops in 1 s. */
static void
store_run (store_t *store)
{
    CHECK (store_fx_exec (store,
        "INSERT INTO agents (id, name, first_seen, last_seen) VALUES (1, 'a', 0, 0);"
        "INSERT INTO plans (id, name, version, source, text, steps, created_at) "
        " VALUES (1, 'p', 1, 'p.fio', '', '[]', 0);"
        "INSERT INTO runs (id, plan_id, status, created_at) VALUES (1, 1, 'complete', 1);"
        "INSERT INTO steps (run_id, idx, name, spec, status) VALUES (1, 0, 'rr', '{}', 'done');"
        "INSERT INTO step_agents (run_id, step_idx, agent_id, status, targets) "
        " VALUES (1, 0, 1, 'done', '[\"/dev/x\"]');"
        "INSERT INTO snapshots (run_id, step_idx, agent_id, target, seq, t_start, t_end, "
        " read_ops, read_bytes, read_errors, write_ops, write_bytes, write_errors) "
        " VALUES (1, 0, 1, 0, 0, 0, 1000000000, 1000, 4096000, 0, 0, 0, 0);"
        "INSERT INTO results (run_id, step_idx, agent_id, target, direction, ops, bytes, "
        " errors, window_ns, iops, bw, lat_min, lat_max, lat_mean, lat_stddev, snapshots, hist) "
        " VALUES (1, 0, 1, '/dev/x', 'read', 1000, 4096000, 0, 1000000000, 1000, 4096000, "
        "  0, 0, 0, 0, 1, X'');"
        "INSERT INTO fleet_results (run_id, step_idx, direction, agents, ops, bytes, errors, "
        " iops, bw, hist) VALUES (1, 0, 'read', 1, 1000, 4096000, 0, 1000, 4096000, X'');")
        == SQLITE_OK);
}

/* The report of run 1 is an error naming the database while table is
   renamed away, and the report again once it is back. */
static void
report_fails_without (store_t *store, const char *table)
{
    char sql[200], err[512] = "";
    snprintf (sql, sizeof sql, "ALTER TABLE %s RENAME TO away", table);
    CHECK (store_fx_exec (store, sql) == SQLITE_OK);
    json_t *rep = report_json (store, 1, NULL, NULL, NULL, err, sizeof err);
    CHECK_MSG (rep == NULL, "a report without table %s", table);
    CHECK_MSG (strstr (err, "database error reading run 1") != NULL, "%s: %s", table, err);
    json_decref (rep);
    snprintf (sql, sizeof sql, "ALTER TABLE away RENAME TO %s", table);
    CHECK (store_fx_exec (store, sql) == SQLITE_OK);
    rep = report_json (store, 1, NULL, NULL, NULL, err, sizeof err);
    CHECK_MSG (rep != NULL, "%s back: %s", table, err);
    json_decref (rep);
}

/* The history req asks for is an error naming the database while table
   is renamed away. */
static void
history_fails_without (store_t *store, json_t *req, const char *table)
{
    char sql[200], err[512] = "";
    snprintf (sql, sizeof sql, "ALTER TABLE %s RENAME TO away", table);
    CHECK (store_fx_exec (store, sql) == SQLITE_OK);
    json_t *h = history_json (store, req, err, sizeof err);
    CHECK_MSG (h == NULL, "a history without table %s", table);
    CHECK_MSG (strstr (err, "database error reading run 1") != NULL, "%s: %s", table, err);
    json_decref (h);
    snprintf (sql, sizeof sql, "ALTER TABLE away RENAME TO %s", table);
    CHECK (store_fx_exec (store, sql) == SQLITE_OK);
}

int
main (void)
{
    char dir[] = "/tmp/test_read_errors.XXXXXX", err[512];
    store_t *store = store_fx_open (dir);
    if (!store)
        return 1;
    store_run (store);

    /* The good answers first: they cache the statements. */
    json_t *rep = report_json (store, 1, "agent", NULL, NULL, err, sizeof err);
    CHECK_MSG (rep != NULL, "%s", err);
    json_t *s0 = json_array_get (json_object_get (rep, "steps"), 0);
    json_t *a0 = json_array_get (json_object_get (s0, "agents"), 0);
    CHECK (json_array_size (json_object_get (a0, "targets")) == 1);
    CHECK (json_array_size (json_object_get (s0, "intervals")) == 1);
    CHECK (report_add_histograms (store, 1, rep) == 0);
    json_decref (rep);

    /* Each query of the report, made to fail. */
    report_fails_without (store, "results");        /* the agents' targets */
    report_fails_without (store, "snapshot_blocks"); /* the agents' intervals, the series */
    report_fails_without (store, "fleet_results");  /* the fleet's figures */
    report_fails_without (store, "steps");          /* the run's steps */

    /* The HTML report's histograms: an error, not a step without one. */
    CHECK (store_fx_exec (store, "ALTER TABLE fleet_results RENAME TO away") == SQLITE_OK);
    rep = json_pack ("{s:[]}", "steps");
    json_array_append_new (json_object_get (rep, "steps"),
                           json_pack ("{s:i, s:{}}", "index", 0, "fleet"));
    CHECK (report_add_histograms (store, 1, rep) == -1);
    json_decref (rep);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO fleet_results") == SQLITE_OK);

    /* History: the metric's unit comes with it (the CLI formats by it),
       and a run whose steps can't be read is an error, not no rows. */
    json_t *req = json_pack ("{s:s, s:s}", "step", "rr", "metric", "p99");
    json_t *h = history_json (store, req, err, sizeof err);
    CHECK_MSG (h != NULL, "%s", err);
    CHECK (json_array_size (json_object_get (h, "rows")) == 1);
    CHECK (strcmp (json_string_value (json_object_get (h, "unit")) ?: "", "ns") == 0);
    json_decref (h);
    json_object_set_new (req, "metric", json_string ("ops"));
    h = history_json (store, req, err, sizeof err);
    CHECK (strcmp (json_string_value (json_object_get (h, "unit")) ?: "", "count") == 0);
    json_decref (h);
    history_fails_without (store, req, "steps");
    json_object_set_new (req, "by", json_string ("agent"));
    history_fails_without (store, req, "results");  /* the groups' members */
    json_decref (req);

    /* store_row itself: a row, the end, and a step that fails at run
       time (an integer overflow) told apart; a NULL statement (a prepare
       that failed) is an error too. */
    sqlite3_stmt *st = store_stmt (store, "SELECT 1");
    CHECK (store_row (store, st, "one row") == 1);
    CHECK (store_row (store, st, "one row") == 0);
    st = store_stmt (store, "SELECT abs(-9223372036854775807 - 1)");
    CHECK (store_row (store, st, "overflow") == -1);
    CHECK (store_row (store, NULL, "no statement") == -1);

    /* The records the loop lists (runs, plans, schedules' plan check):
       an error, not an empty list. */
    ctl_t ctl = { .store = store };
    json_t *list = runs_list (&ctl, err, sizeof err);
    CHECK_MSG (json_array_size (list) == 1, "%s", err);
    json_decref (list);
    list = plan_list (&ctl, err, sizeof err);
    CHECK_MSG (json_array_size (list) == 1, "%s", err);
    json_decref (list);
    CHECK (store_fx_exec (store, "ALTER TABLE runs RENAME TO away") == SQLITE_OK);
    err[0] = '\0';
    CHECK (runs_list (&ctl, err, sizeof err) == NULL);
    CHECK_MSG (strstr (err, "database error listing the runs") != NULL, "%s", err);
    err[0] = '\0';
    CHECK (plan_list (&ctl, err, sizeof err) == NULL);
    CHECK_MSG (strstr (err, "database error listing the plans") != NULL, "%s", err);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO runs") == SQLITE_OK);

    store_fx_close (&store, dir);
    printf ("test_read_errors: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
