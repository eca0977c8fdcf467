/*  runs.c: the runs as records: list them, say what a run is of (labels,
    a note), remove one; and the rows of a run's life (runs, run_agents)
    as the run state machine (run/) queues, starts, cancels and ends it.
    run/ runs them; report.c reports them.
*/
#include "controller.h"
#include "log.h"
#include "message.h"
#include "util.h"
#include "runs.h"
#include "store.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

json_t *
runs_list (ctl_t *ctl, char *err, size_t errlen)
{
    json_t *list = json_array ();
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT r.id, p.name, p.version, r.status, r.message, r.created_at, r.started_at, "
        " r.finished_at, (SELECT COUNT(*) FROM run_agents ra WHERE ra.run_id = r.id), "
        " r.labels, r.note, r.origin, r.cancelled_by, r.cancelled_at, "
        " (SELECT f.schedule FROM fires f WHERE f.run_id = r.id LIMIT 1), "
        " (SELECT f.verdict FROM fires f WHERE f.run_id = r.id LIMIT 1) "
        "FROM runs r JOIN plans p ON p.id = r.plan_id ORDER BY r.id");
    int rc;
    while ((rc = store_row (ctl->store, st, "list runs")) == 1) {
        json_t *labels = json_loads ((const char *) sqlite3_column_text (st, 9), 0, NULL);
        json_t *o = json_pack ("{s:I, s:s, s:i, s:s, s:s, s:I, s:i, s:o, s:s, s:s}",
            "id", (json_int_t) sqlite3_column_int64 (st, 0),
            "plan", (const char *) sqlite3_column_text (st, 1),
            "plan_version", sqlite3_column_int (st, 2),
            "status", (const char *) sqlite3_column_text (st, 3),
            "message", (const char *) sqlite3_column_text (st, 4),
            "created_at", (json_int_t) sqlite3_column_int64 (st, 5),
            "agents", sqlite3_column_int (st, 8),
            "labels", json_is_object (labels) ? labels : json_object (),
            "note", (const char *) sqlite3_column_text (st, 10),
            "origin", (const char *) sqlite3_column_text (st, 11));
        if (labels && !json_is_object (labels))
            json_decref (labels);
        if (sqlite3_column_type (st, 6) != SQLITE_NULL)
            json_object_set_new (o, "started_at", json_integer (sqlite3_column_int64 (st, 6)));
        if (sqlite3_column_type (st, 7) != SQLITE_NULL)
            json_object_set_new (o, "finished_at", json_integer (sqlite3_column_int64 (st, 7)));
        if (sqlite3_column_type (st, 12) != SQLITE_NULL) {
            json_object_set_new (o, "cancelled_by",
                                 json_string ((const char *) sqlite3_column_text (st, 12)));
            json_object_set_new (o, "cancelled_at", json_integer (sqlite3_column_int64 (st, 13)));
        }
        /* A scheduled run: its schedule, and once judged its verdict
           against the schedule's baseline (verdict.c). */
        if (sqlite3_column_type (st, 14) != SQLITE_NULL)
            json_object_set_new (o, "schedule",
                                 json_string ((const char *) sqlite3_column_text (st, 14)));
        if (sqlite3_column_bytes (st, 15) > 0)
            json_object_set_new (o, "verdict",
                                 json_string ((const char *) sqlite3_column_text (st, 15)));
        json_array_append_new (list, o);
    }
    sqlite3_reset (st);
    if (rc < 0) {
        json_decref (list);
        snprintf (err, errlen, "database error listing the runs; see the controller's log");
        return NULL;
    }
    return list;
}

int
runs_row (store_t *store, sqlite3_stmt *st, int64_t run, char *err, size_t errlen)
{
    int rc = store_row (store, st, "read the run");
    if (rc == 1)
        return 1;
    sqlite3_reset (st);
    if (rc < 0)
        snprintf (err, errlen, "database error reading run %lld; see the controller's log",
                  (long long) run);
    else
        snprintf (err, errlen, "no run %lld (see 'iofleet runs')", (long long) run);
    return rc;
}

/* A key: 1..MSG_NAME_MAX of letters, digits, '_', '-', '.'. */
static bool
label_key_ok (const char *k)
{
    size_t n = strlen (k);
    return n >= 1 && n <= MSG_NAME_MAX
        && strspn (k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == n;
}

/* Printable text of at most max bytes (UTF-8 beyond ASCII allowed). */
static bool
text_ok (const char *v, size_t max)
{
    size_t n = strlen (v);
    if (n > max)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char) v[i] < 0x20 || v[i] == 0x7f)
            return false;
    return true;
}

int
runs_labels_check (json_t *labels, const char *note, char *err, size_t errlen)
{
    if (labels && !json_is_object (labels)) {
        snprintf (err, errlen, "run labels must be a JSON object of KEY: VALUE strings");
        return -1;
    }
    if (labels && json_object_size (labels) > MSG_LABELS_MAX) {
        snprintf (err, errlen, "%zu run labels: at most %d", json_object_size (labels),
                  MSG_LABELS_MAX);
        return -1;
    }
    const char *k;
    json_t *v;
    json_object_foreach (labels, k, v) {
        if (!label_key_ok (k)) {
            snprintf (err, errlen, "--label '%.80s': a key is 1..%d letters, digits, '_', '-' or "
                      "'.'", k, MSG_NAME_MAX);
            return -1;
        }
        if (!json_is_string (v) || !text_ok (json_string_value (v), MSG_LABEL_VALUE_MAX)) {
            snprintf (err, errlen, "--label %s: its value must be text of at most %d bytes "
                      "without control characters", k, MSG_LABEL_VALUE_MAX);
            return -1;
        }
    }
    if (note && !text_ok (note, MSG_TEXT_MAX)) {
        snprintf (err, errlen, "--note: at most %d bytes of text without control characters "
                  "(%zu given)", MSG_TEXT_MAX, strlen (note));
        return -1;
    }
    return 0;
}

int
runs_annotate (ctl_t *ctl, int64_t run, json_t *labels, const char *note)
{
    char *text = json_dumps (labels ? labels : json_object (), JSON_COMPACT | JSON_SORT_KEYS);
    sqlite3_stmt *st = store_stmt (ctl->store, "UPDATE runs SET labels = ?, note = ? WHERE id = ?");
    sqlite3_bind_text (st, 1, text ? text : "{}", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 2, note ? note : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 3, run);
    free (text);
    return store_step_done (ctl->store, st, "label run");
}

/* Every table with a run_id column, from the schema itself: a table a
   later migration adds is covered without a list to keep.  NULL on a
   database error (logged). */
static json_t *
run_tables (ctl_t *ctl)
{
    json_t *t = json_array ();
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT m.name, c.\"notnull\" FROM sqlite_master m, pragma_table_info(m.name) c "
        "WHERE m.type = 'table' AND c.name = 'run_id' ORDER BY m.name");
    int rc;
    while ((rc = store_row (ctl->store, st, "list the tables of runs")) == 1)
        json_array_append_new (t, json_pack ("[s, b]", (const char *) sqlite3_column_text (st, 0),
                                             sqlite3_column_int (st, 1)));
    sqlite3_reset (st);
    if (rc < 0) {
        json_decref (t);
        return NULL;
    }
    return t;
}

/* Runs "VERB ... table ... WHERE run_id = ?" built at run time (a table
   name cannot be bound, and store_stmt keeps literals only): a COUNT's
   answer in *n.  Returns 0 or -1 (logged). */
static int
run_rows (ctl_t *ctl, const char *fmt, const char *table, int64_t run, int64_t *n)
{
    char sql[256];
    snprintf (sql, sizeof sql, fmt, table);
    sqlite3_stmt *st;
    sqlite3 *db = store_db (ctl->store);
    if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK) {
        log_err ("database: cannot prepare '%s': %s", sql, sqlite3_errmsg (db));
        return -1;
    }
    sqlite3_bind_int64 (st, 1, run);
    int rc = sqlite3_step (st);
    if (n)
        *n = rc == SQLITE_ROW ? sqlite3_column_int64 (st, 0) : 0;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        log_err ("database: %s: %s", sql, sqlite3_errmsg (db));
    sqlite3_finalize (st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

json_t *
runs_rm (ctl_t *ctl, int64_t run, bool dry, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (ctl->store,
        "SELECT r.status, p.name, p.version FROM runs r JOIN plans p ON p.id = r.plan_id "
        "WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (runs_row (ctl->store, st, run, err, errlen) != 1)
        return NULL;
    char status[32], plan[MSG_NAME_MAX + 1];
    snprintf (status, sizeof status, "%s", (const char *) sqlite3_column_text (st, 0));
    snprintf (plan, sizeof plan, "%s", (const char *) sqlite3_column_text (st, 1));
    int version = sqlite3_column_int (st, 2);
    sqlite3_reset (st);
    if (strcmp (status, "queued") == 0 || strcmp (status, "running") == 0) {
        snprintf (err, errlen, "run %lld is %s: cancel it first (iofleet cancel %lld) or wait "
                  "for it to end (iofleet watch %lld)", (long long) run, status, (long long) run,
                  (long long) run);
        return NULL;
    }
    /* A schedule judging against it would lose its baseline. */
    char id[24];
    snprintf (id, sizeof id, "%lld", (long long) run);
    st = store_stmt (ctl->store, "SELECT name FROM schedules WHERE baseline = ? LIMIT 1");
    sqlite3_bind_text (st, 1, id, -1, SQLITE_TRANSIENT);
    int rc = store_row (ctl->store, st, "find schedules judging against the run");
    if (rc == 1) {
        snprintf (err, errlen, "schedule '%s' judges its runs against run %lld (--baseline): "
                  "give it another baseline first", (const char *) sqlite3_column_text (st, 0),
                  (long long) run);
        sqlite3_reset (st);
        return NULL;
    }
    sqlite3_reset (st);
    if (rc < 0)
        goto db_error;
    /* How many rows of each table go (a nullable run_id, such as a
       schedule's fire, is cleared instead: the fire happened). */
    json_t *tables = run_tables (ctl);
    if (!tables)
        goto db_error;
    json_t *rows = json_object ();
    size_t i;
    json_t *t;
    json_array_foreach (tables, i, t) {
        int64_t n = 0;
        if (run_rows (ctl, "SELECT COUNT(*) FROM \"%s\" WHERE run_id = ?",
                      json_string_value (json_array_get (t, 0)), run, &n)) {
            json_decref (tables);
            json_decref (rows);
            goto db_error;
        }
        if (n)
            json_object_set_new (rows, json_string_value (json_array_get (t, 0)),
                                 json_integer (n));
    }
    json_t *o = json_pack ("{s:I, s:s, s:i, s:s, s:O, s:b}", "run", (json_int_t) run, "plan", plan,
                           "plan_version", version, "status", status, "rows", rows, "dry_run", dry);
    if (dry) {
        json_decref (tables);
        json_decref (rows);
        return o;
    }
    /* A savepoint inside the tick's transaction: a failure takes back the
       removal only, never half of it. */
    store_begin (ctl->store);
    sqlite3_exec (store_db (ctl->store), "SAVEPOINT runs_rm", NULL, NULL, NULL);
    rc = 0;
    json_array_foreach (tables, i, t) {
        rc |= run_rows (ctl, json_is_true (json_array_get (t, 1))
                             ? "DELETE FROM \"%s\" WHERE run_id = ?"
                             : "UPDATE \"%s\" SET run_id = NULL WHERE run_id = ?",
                        json_string_value (json_array_get (t, 0)), run, NULL);
    }
    st = store_stmt (ctl->store, "DELETE FROM runs WHERE id = ?");
    sqlite3_bind_int64 (st, 1, run);
    rc |= store_step_done (ctl->store, st, "remove run");
    json_decref (tables);
    json_decref (rows);
    sqlite3_exec (store_db (ctl->store), rc ? "ROLLBACK TO runs_rm; RELEASE runs_rm"
                                            : "RELEASE runs_rm", NULL, NULL, NULL);
    if (rc || store_commit (ctl->store)) {
        json_decref (o);
        snprintf (err, errlen, "database error removing run %lld; see the controller's log",
                  (long long) run);
        return NULL;
    }
    log_info ("run %lld of plan '%s' version %d removed", (long long) run, plan, version);
    return o;

db_error:
    snprintf (err, errlen, "database error reading run %lld; see the controller's log",
              (long long) run);
    return NULL;
}

bool
runs_busy (store_t *store, int64_t *run)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT id FROM runs WHERE status IN ('queued', 'running') ORDER BY id LIMIT 1");
    /* A read error (logged) counts as busy: nothing starts on a guess. */
    int rc = store_row (store, st, "find a queued or running run");
    bool busy = rc != 0;
    *run = rc == 1 ? sqlite3_column_int64 (st, 0) : 0;
    if (st)
        sqlite3_reset (st);
    return busy;
}

int
runs_create (store_t *store, int64_t plan_id, int64_t now_ns, int min_agents, bool require_all,
             int64_t *run)
{
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO runs (plan_id, status, created_at, min_agents, require_all) "
        "VALUES (?, 'queued', ?, ?, ?)");
    sqlite3_bind_int64 (st, 1, plan_id);
    sqlite3_bind_int64 (st, 2, now_ns);
    sqlite3_bind_int (st, 3, min_agents);
    sqlite3_bind_int (st, 4, require_all);
    if (store_step_done (store, st, "create run"))
        return -1;
    *run = sqlite3_last_insert_rowid (store_db (store));
    return 0;
}

int
runs_add_agent (store_t *store, int64_t run, int64_t agent_id)
{
    sqlite3_stmt *st = store_stmt (store,
        "INSERT INTO run_agents (run_id, agent_id) VALUES (?, ?)");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int64 (st, 2, agent_id);
    return store_step_done (store, st, "select agent");
}

int
runs_set_status (store_t *store, int64_t run, const char *status, const char *message,
                 int64_t now_ns)
{
    sqlite3_stmt *st = store_stmt (store,
        "UPDATE runs SET status = ?2, message = ?3, "
        "started_at = CASE WHEN ?2 = 'running' THEN ?4 ELSE started_at END, "
        "finished_at = CASE WHEN ?2 IN ('complete','partial','failed','cancelled') THEN ?4 "
        " ELSE finished_at END "
        "WHERE id = ?1");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_text (st, 2, status, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 3, message, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 4, now_ns);
    return store_step_done (store, st, "update run status");
}

int
runs_set_cancelled (store_t *store, int64_t run, const char *by, int64_t now_ns)
{
    sqlite3_stmt *st = store_stmt (store,
        "UPDATE runs SET cancelled_by = ?, cancelled_at = ? WHERE id = ?");
    sqlite3_bind_text (st, 1, by, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, now_ns);
    sqlite3_bind_int64 (st, 3, run);
    return store_step_done (store, st, "record who cancelled");
}

int
runs_set_rounds (store_t *store, int64_t run, int rounds, const char *rule)
{
    sqlite3_stmt *st = store_stmt (store,
        "UPDATE runs SET rounds = ?, steady_rule = ? WHERE id = ?");
    sqlite3_bind_int (st, 1, rounds);
    if (rule && rule[0])
        sqlite3_bind_text (st, 2, rule, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 3, run);
    return store_step_done (store, st, "store the run's rounds");
}

int
runs_fail_orphans (store_t *store, int64_t keep, int64_t now_ns)
{
    sqlite3_stmt *st = store_stmt (store,
        "UPDATE runs SET status = 'failed', finished_at = ?1, "
        "message = 'the controller stopped during this run; snapshots stored until then are kept' "
        "WHERE status = 'running' AND id != ?2");
    sqlite3_bind_int64 (st, 1, now_ns);
    sqlite3_bind_int64 (st, 2, keep);
    return store_step_done (store, st, "recover runs");
}

/* The one id st answers (0 when none, or NULL) in *id.  Returns 0, or -1
   on a database error (logged with context what; *id 0). */
static int
s_one_id (store_t *store, sqlite3_stmt *st, const char *what, int64_t *id)
{
    *id = 0;
    int rc = store_row (store, st, what);
    if (rc == 1)
        *id = sqlite3_column_int64 (st, 0);
    if (st)
        sqlite3_reset (st);
    return rc < 0 ? -1 : 0;
}

int
runs_running (store_t *store, int64_t *run)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT MAX(id) FROM runs WHERE status = 'running'");
    return s_one_id (store, st, "find the running run", run);
}

int
runs_queued (store_t *store, int64_t *run)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT id FROM runs WHERE status = 'queued' ORDER BY id LIMIT 1");
    return s_one_id (store, st, "find the queued run", run);
}

int
runs_status (store_t *store, int64_t run, char *status, size_t cap, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT status FROM runs WHERE id = ?");
    sqlite3_bind_int64 (st, 1, run);
    int rc = runs_row (store, st, run, err, errlen);
    if (rc != 1)
        return rc;
    str_copy (status, cap, (const char *) sqlite3_column_text (st, 0));
    sqlite3_reset (st);
    return 1;
}

json_t *
runs_summary (store_t *store, int64_t run, char *err, size_t errlen)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT r.status, r.message, p.name, "
        " (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.id), r.cancelled_by, r.cancelled_at "
        "FROM runs r JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (runs_row (store, st, run, err, errlen) != 1)
        return NULL;
    json_t *o = json_pack ("{s:I, s:s, s:s, s:s, s:i}", "run", (json_int_t) run,
                           "status", (const char *) sqlite3_column_text (st, 0),
                           "message", (const char *) sqlite3_column_text (st, 1),
                           "plan", (const char *) sqlite3_column_text (st, 2),
                           "steps", sqlite3_column_int (st, 3));
    if (sqlite3_column_type (st, 4) != SQLITE_NULL) {
        json_object_set_new (o, "cancelled_by",
                             json_string ((const char *) sqlite3_column_text (st, 4)));
        json_object_set_new (o, "cancelled_at", json_integer (sqlite3_column_int64 (st, 5)));
    }
    sqlite3_reset (st);
    return o;
}

int
runs_plan_of (store_t *store, int64_t run, char *name, size_t namelen, char **text,
              int *min_agents, bool *require_all)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT p.name, p.text, r.min_agents, r.require_all FROM runs r "
        "JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    int found = store_row (store, st, "read the run's plan");
    if (found == 1) {
        *min_agents = sqlite3_column_int (st, 2);
        *require_all = sqlite3_column_int (st, 3) != 0;
        str_copy (name, namelen, (const char *) sqlite3_column_text (st, 0));
        *text = strdup ((const char *) sqlite3_column_text (st, 1));
        if (!*text) {
            log_err ("run %lld: out of memory reading its plan", (long long) run);
            found = -1;
        }
    }
    if (st)
        sqlite3_reset (st);
    return found;
}

json_t *
runs_agents (store_t *store, int64_t run)
{
    json_t *list = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.id, a.name FROM run_agents ra JOIN agents a ON a.id = ra.agent_id "
        "WHERE ra.run_id = ? ORDER BY a.name");
    sqlite3_bind_int64 (st, 1, run);
    int rc;
    while ((rc = store_row (store, st, "list the run's agents")) == 1)
        json_array_append_new (list, json_pack ("{s:I, s:s}",
            "id", (json_int_t) sqlite3_column_int64 (st, 0),
            "name", (const char *) sqlite3_column_text (st, 1)));
    if (st)
        sqlite3_reset (st);
    if (rc < 0 || !list) {
        json_decref (list);
        return NULL;
    }
    return list;
}

int
runs_finished (store_t *store, int64_t run)
{
    IOF_ASSERT (store);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT status FROM runs WHERE id = ? AND status IN ('complete', 'partial')");
    sqlite3_bind_int64 (st, 1, run);
    int rc = store_row (store, st, "find the baseline run");
    if (st)
        sqlite3_reset (st);
    return rc;
}
