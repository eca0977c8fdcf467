/*  test_step_rows.c: the data layer the run state machine writes and
    reads its rows through (store/step_rows.c, store/runs.c's run life,
    store/snapshot_store.c's block queries, store/known_agents.c,
    plans_latest), on a database of its own: each row written reads back
    as written, and a query whose table is gone says it failed rather
    than answering as if there were nothing.
*/
#include "testutil.h"
#include "store_fx.h"
#include "known_agents.h"
#include "plans.h"
#include "runs.h"
#include "snapshot_store.h"
#include "step_rows.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

/* The one integer sql answers (-1 when none). */
static int64_t
one (store_t *store, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2 (store_db (store), sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step (st) == SQLITE_ROW && sqlite3_column_type (st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64 (st, 0);
    sqlite3_finalize (st);
    return v;
}

static void
test_runs (store_t *store)
{
    char err[256] = "", status[32] = "", name[64] = "";
    int64_t plan = -1, run = 0, other = 0, id = -1;
    CHECK (plans_latest (store, "p", &plan) == 0 && plan == 2);
    CHECK (plans_latest (store, "none", &plan) == 0 && plan == 0);
    CHECK (runs_queued (store, &id) == 0 && id == 0);

    CHECK (store_begin (store) == 0);
    CHECK (runs_create (store, 2, 1000, 1, true, &run) == 0 && run > 0);
    CHECK (runs_add_agent (store, run, 1) == 0);
    CHECK (runs_add_agent (store, run, 2) == 0);
    CHECK (runs_queued (store, &id) == 0 && id == run);
    CHECK (runs_status (store, run, status, sizeof status, err, sizeof err) == 1);
    CHECK (strcmp (status, "queued") == 0);

    json_t *agents = runs_agents (store, run);
    CHECK (json_array_size (agents) == 2);
    CHECK (json_integer_value (json_object_get (json_array_get (agents, 0), "id")) == 1);
    CHECK (strcmp (json_string_value (json_object_get (json_array_get (agents, 1), "name")), "b")
           == 0);
    json_decref (agents);

    char *text = NULL;
    int min_agents = 0;
    bool require_all = false;
    CHECK (runs_plan_of (store, run, name, sizeof name, &text, &min_agents, &require_all) == 1);
    CHECK (strcmp (name, "p") == 0 && text && strcmp (text, "[rr]\nrw=randread\n") == 0);
    CHECK (min_agents == 1 && require_all);
    free (text);
    text = NULL;
    CHECK (runs_plan_of (store, 999, name, sizeof name, &text, &min_agents, &require_all) == 0);
    CHECK (text == NULL);

    CHECK (runs_set_status (store, run, "running", "", 2000) == 0);
    CHECK (runs_running (store, &id) == 0 && id == run);
    CHECK (one (store, "SELECT started_at FROM runs WHERE status = 'running'") == 2000);
    CHECK (runs_set_rounds (store, run, 3, "") == 0);
    CHECK (one (store, "SELECT rounds FROM runs WHERE steady_rule IS NULL") == 3);

    /* Another run left running by an older crash is failed; run is kept. */
    CHECK (runs_create (store, 2, 1000, 0, false, &other) == 0);
    CHECK (runs_set_status (store, other, "running", "", 2500) == 0);
    CHECK (runs_fail_orphans (store, other, 3000) == 0);
    CHECK (runs_status (store, run, status, sizeof status, err, sizeof err) == 1);
    CHECK (strcmp (status, "failed") == 0);
    CHECK (runs_status (store, other, status, sizeof status, err, sizeof err) == 1);
    CHECK (strcmp (status, "running") == 0);

    CHECK (runs_set_cancelled (store, other, "alice", 4000) == 0);
    CHECK (runs_set_status (store, other, "cancelled", "cancelled by alice", 4000) == 0);
    json_t *o = runs_summary (store, other, err, sizeof err);
    CHECK (o && strcmp (json_string_value (json_object_get (o, "status")), "cancelled") == 0);
    CHECK (o && strcmp (json_string_value (json_object_get (o, "cancelled_by")), "alice") == 0);
    CHECK (o && json_integer_value (json_object_get (o, "cancelled_at")) == 4000);
    CHECK (o && strcmp (json_string_value (json_object_get (o, "plan")), "p") == 0);
    json_decref (o);
    CHECK (runs_summary (store, 999, err, sizeof err) == NULL);
    CHECK_MSG (strstr (err, "no run 999"), "%s", err);
    CHECK (runs_status (store, 999, status, sizeof status, err, sizeof err) == 0);
    CHECK (store_commit (store) == 0);
}

static void
test_steps (store_t *store)
{
    const int64_t run = 1;
    CHECK (store_begin (store) == 0);
    CHECK (step_rows_add (store, run, 0, "rr", "{}", 0, 0) == 0);
    CHECK (step_rows_add (store, run, 1, "rw", "{}", 1, 1) == 0);
    CHECK (step_rows_add (store, run, 2, "rw", "{}", 2, 1) == 0);
    CHECK (one (store, "SELECT COUNT(*) FROM steps WHERE round IS NULL") == 1);
    CHECK (step_rows_set_status (store, run, 0, "running", 500, 600) == 0);
    CHECK (step_rows_set_status (store, run, 0, "complete", 0, 700) == 0);
    CHECK (one (store, "SELECT start_at FROM steps WHERE idx = 0 AND finished_at = 700") == 500);
    CHECK (step_rows_set_skew (store, run, 0, 42) == 0);
    CHECK (step_rows_set_skew (store, run, 1, -1) == 0);
    CHECK (one (store, "SELECT skew_ns FROM steps WHERE idx = 0") == 42);
    CHECK (one (store, "SELECT skew_ns FROM steps WHERE idx = 1") == -1);
    CHECK (step_rows_cancel_pending (store, run, 1) == 0);
    json_t *rows = NULL;
    CHECK (step_rows_list (store, run, &rows) == 0 && json_array_size (rows) == 3);
    CHECK (strcmp (json_string_value (json_object_get (json_array_get (rows, 0), "status")),
                   "complete") == 0);
    CHECK (strcmp (json_string_value (json_object_get (json_array_get (rows, 1), "status")),
                   "pending") == 0);
    CHECK (strcmp (json_string_value (json_object_get (json_array_get (rows, 2), "status")),
                   "cancelled") == 0);
    CHECK (json_integer_value (json_object_get (json_array_get (rows, 0), "start_at")) == 500);
    json_decref (rows);

    /* An agent's part: a new row, then an update keeping its targets. */
    step_rows_agent_t a = { .agent_id = 1, .status = "running", .message = "",
                            .actual_start = 900, .snapshots = 0, .clock_known = true,
                            .clock_offset = -5, .clock_delay = 7 };
    CHECK (step_rows_save_agent (store, run, 0, &a, "[\"/dev/x\",\"/dev/y\"]") == 0);
    a.status = "done";
    a.message = "fine";
    a.snapshots = 12;
    CHECK (step_rows_save_agent (store, run, 0, &a, NULL) == 0);
    char status[32] = "", msg[64] = "";
    CHECK (step_rows_agent_status (store, run, 0, 1, status, sizeof status, msg, sizeof msg) == 1);
    CHECK (strcmp (status, "done") == 0 && strcmp (msg, "fine") == 0);
    CHECK (step_rows_agent_status (store, run, 0, 2, status, sizeof status, msg, sizeof msg) == 0);
    CHECK (step_rows_agent_done (store, run, 0, 1) == 1);
    CHECK (step_rows_agent_done (store, run, 1, 1) == 0);
    json_t *tl = step_rows_agent_targets (store, run, 0, 1);
    CHECK (json_array_size (tl) == 2);
    json_decref (tl);
    CHECK (step_rows_agent_targets (store, run, 0, 2) == NULL);
    CHECK (step_rows_set_planned (store, run, 0, 1, "[100,200]") == 0);
    CHECK (step_rows_set_drives (store, run, 0, 1, "[null,null]") == 0);
    CHECK (one (store, "SELECT clock_offset_ns FROM step_agents WHERE target_drives = "
                       "'[null,null]'") == -5);
    CHECK (step_rows_agents (store, run, 0, &rows) == 0 && json_array_size (rows) == 1);
    json_t *r0 = json_array_get (rows, 0);
    CHECK (json_integer_value (json_object_get (r0, "snapshots")) == 12);
    CHECK (json_integer_value (json_object_get (r0, "actual_start")) == 900);
    CHECK (strcmp (json_string_value (json_object_get (r0, "targets")),
                   "[\"/dev/x\",\"/dev/y\"]") == 0);
    CHECK (strcmp (json_string_value (json_object_get (r0, "target_planned")), "[100,200]") == 0);
    json_decref (rows);

    CHECK (step_rows_add_depth (store, run, 0, 1, 0, 16) == 0);
    CHECK (step_rows_add_depth (store, run, 0, 1, 1, 8) == 0);
    CHECK (one (store, "SELECT SUM(depth) FROM latency_depths") == 24);
    CHECK (step_rows_clear_depths (store, run, 0, 1) == 0);
    CHECK (one (store, "SELECT COUNT(*) FROM latency_depths") == 0);
    CHECK (step_rows_add_depth (store, run, 0, 1, 0, 16) == 0);
    CHECK (step_rows_clear_attempt (store, run, 0) == 0);
    CHECK (one (store, "SELECT COUNT(*) FROM latency_depths") == 0);

    CHECK (step_rows_set_inventory (store, run, 0, 1, 1) == 0);
    CHECK (one (store, "SELECT inventory_id FROM run_inventory WHERE step_idx = 0") == 1);
    CHECK (store_commit (store) == 0);
}

static void
count_seq (void *arg, int64_t agent, int64_t seq)
{
    int64_t *sum = arg;
    *sum += agent * 100 + seq;
}

static void
test_blocks (store_t *store)
{
    CHECK (store_begin (store) == 0);
    CHECK (snapshot_store_insert (store, 1, 0, 1, 0, 1, 0, "x", 1) == 0);
    CHECK (snapshot_store_insert (store, 1, 0, 1, 1, 1, 0, "y", 1) == 0);
    CHECK (snapshot_store_insert (store, 1, 0, 1, 1, 1, 0, "z", 1) == 0);     /* a copy */
    CHECK (one (store, "SELECT COUNT(*) FROM snapshot_blocks") == 2);
    CHECK (snapshot_store_has (store, 1, 0, 1, 1) == 1);
    CHECK (snapshot_store_has (store, 1, 0, 1, 2) == 0);
    int64_t sum = 0;
    CHECK (snapshot_store_seqs (store, 1, 0, count_seq, &sum) == 0 && sum == 201);
    CHECK (snapshot_store_clear_step (store, 1, 0) == 0);
    CHECK (snapshot_store_has (store, 1, 0, 1, 0) == 0);
    json_t *rows = NULL;
    CHECK (snapshot_store_step_bytes (store, 1, 0, &rows) == 0 && json_array_size (rows) == 0);
    json_decref (rows);
    CHECK (store_commit (store) == 0);
}

static void
test_agents (store_t *store)
{
    CHECK (known_agents_has (store, "a") == 1);
    CHECK (known_agents_has (store, "imported-host") == 0);
    json_t *rows = NULL;
    CHECK (known_agents_list (store, &rows) == 0 && json_array_size (rows) == 2);
    json_t *a = json_array_get (rows, 0);
    CHECK (strcmp (json_string_value (json_object_get (a, "name")), "a") == 0);
    CHECK (json_is_string (json_object_get (a, "inventory")));
    CHECK (json_is_null (json_object_get (json_array_get (rows, 1), "inventory")));
    json_decref (rows);
}

/* A query whose table is gone is an error, not an empty answer. */
static void
test_errors (store_t *store)
{
    json_t *rows = NULL;
    int64_t id = 7;
    char status[32], msg[32], err[256] = "";
    CHECK (store_fx_exec (store, "ALTER TABLE steps RENAME TO away") == SQLITE_OK);
    CHECK (step_rows_list (store, 1, &rows) == -1 && json_array_size (rows) == 0);
    json_decref (rows);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO steps") == SQLITE_OK);
    CHECK (store_fx_exec (store, "ALTER TABLE step_agents RENAME TO away") == SQLITE_OK);
    CHECK (step_rows_agents (store, 1, 0, &rows) == -1);
    json_decref (rows);
    CHECK (step_rows_agent_status (store, 1, 0, 1, status, sizeof status, msg, sizeof msg) == -1);
    CHECK (step_rows_agent_done (store, 1, 0, 1) == -1);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO step_agents") == SQLITE_OK);
    CHECK (store_fx_exec (store, "ALTER TABLE runs RENAME TO away") == SQLITE_OK);
    CHECK (runs_queued (store, &id) == -1 && id == 0);
    CHECK (runs_status (store, 1, status, sizeof status, err, sizeof err) == -1);
    CHECK_MSG (strstr (err, "database error reading run 1"), "%s", err);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO runs") == SQLITE_OK);
    CHECK (store_fx_exec (store, "ALTER TABLE run_agents RENAME TO away") == SQLITE_OK);
    CHECK (runs_agents (store, 1) == NULL);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO run_agents") == SQLITE_OK);
    CHECK (store_fx_exec (store, "ALTER TABLE snapshot_blocks RENAME TO away") == SQLITE_OK);
    CHECK (snapshot_store_has (store, 1, 0, 1, 0) == -1);
    CHECK (store_fx_exec (store, "ALTER TABLE away RENAME TO snapshot_blocks") == SQLITE_OK);
    /* Once the tables are back, the same cached statements answer. */
    CHECK (runs_queued (store, &id) == 0);
    CHECK (snapshot_store_has (store, 1, 0, 1, 0) == 0);
}

int
main (void)
{
    char dir[] = "/tmp/iof-step-rows-XXXXXX";
    store_t *store = store_fx_open (dir);
    if (!store)
        return TEST_DONE ();
    CHECK (store_fx_exec (store,
        "INSERT INTO agents (id, name, first_seen, last_seen) VALUES (1, 'a', 0, 0);"
        "INSERT INTO agents (id, name, first_seen, last_seen) VALUES (2, 'b', 0, 0);"
        "INSERT INTO agents (id, name, first_seen, last_seen, imported) "
        " VALUES (3, 'imported-host', 0, 0, 1);"
        "INSERT INTO inventories (id, agent_id, hash, json, first_seen) "
        " VALUES (1, 1, 'h', '{\"drives\":[]}', 0);"
        "UPDATE agents SET inventory_id = 1 WHERE id = 1;"
        "INSERT INTO plans (id, name, version, source, text, steps, created_at) "
        " VALUES (1, 'p', 1, 'p.fio', '', '[]', 0);"
        "INSERT INTO plans (id, name, version, source, text, steps, created_at) "
        " VALUES (2, 'p', 2, 'p.fio', '[rr]\nrw=randread\n', '[]', 0);") == SQLITE_OK);
    test_runs (store);
    test_steps (store);
    test_blocks (store);
    test_agents (store);
    test_errors (store);
    store_fx_close (&store, dir);
    return TEST_DONE ();
}
