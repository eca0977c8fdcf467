/*  history.c: a metric of the steps named alike across runs, see history.h. */
#include "compare.h"
#include "controller.h"
#include "history.h"
#include "report.h"
#include "step_health.h"
#include "groups.h"
#include "store.h"
#include "history_sets.h"

#include <fnmatch.h>
#include <string.h>
#include <time.h>

/* One figure of a direction object of a report (fleet or group), or NULL
   when it has none (fio percentiles that were not reported, say). */
static json_t *
s_metric_of (json_t *dir, const char *metric)
{
    if (strcmp (metric, "iops") == 0 || strcmp (metric, "bw") == 0 || strcmp (metric, "ops") == 0
        || strcmp (metric, "errors") == 0)
        return json_object_get (dir, metric);
    if (metric[0] == 'p')
        return json_object_get (json_object_get (dir, "percentiles"), metric);
    return json_object_get (json_object_get (dir, "lat_ns"), metric);
}

static const char *const s_history_metrics[] = {
    "iops", "bw", "ops", "errors", "p50", "p90", "p95", "p99", "p99.9", "p99.99",
    "mean", "min", "max", "stddev",
};

#define HISTORY_ROWS_MAX 200000

/* One history request, checked, and the rows it has found so far. */
typedef struct {
    store_t *store;
    const char *step_glob, *plan_glob, *metric, *by, *dir_only;
    json_t *since;              /* since_ns, or NULL */
    bool use_index;             /* read the history index where it holds a step */
    bool health;                /* metric is a drive health figure */
    match_cond_t conds[MATCH_CONDS_MAX];
    int nconds;
    json_int_t from_index, computed;
    json_t *rows;
} history_q_t;

/* The request's fields into q, checked.  Returns 0, or -1 with err. */
static int
s_request (json_t *req, history_q_t *q, char *err, size_t errlen)
{
    q->step_glob = json_string_value (json_object_get (req, "step"));
    q->plan_glob = json_string_value (json_object_get (req, "plan"));
    q->metric = json_string_value (json_object_get (req, "metric"));
    q->by = json_string_value (json_object_get (req, "by"));
    q->dir_only = json_string_value (json_object_get (req, "direction"));
    json_t *where = json_object_get (req, "where");
    q->use_index = !json_is_false (json_object_get (req, "index"));
    q->since = json_object_get (req, "since_ns");
    if (!q->step_glob)
        q->step_glob = "*";
    if (!q->metric)
        q->metric = "p99";
    const char *metric = q->metric, *by = q->by, *dir_only = q->dir_only;
    bool known = false;
    for (size_t i = 0; i < sizeof s_history_metrics / sizeof *s_history_metrics; i++)
        known |= strcmp (metric, s_history_metrics[i]) == 0;
    /* A drive health figure (step_health.h) rather than a performance one. */
    q->health = step_health_is_metric (metric);
    if (!known && !q->health) {
        snprintf (err, errlen, "--metric '%.32s': use iops, bw, ops, errors, p50, p90, p95, p99, "
                  "p99.9, p99.99, mean, min, max or stddev, or a drive health figure: %s",
                  metric, step_health_metrics_text ());
        return -1;
    }
    if (q->health && (json_array_size (where) || dir_only)) {
        snprintf (err, errlen, "--metric %s is a drive health figure: --where and --direction "
                  "do not apply to it (group it with --by)", metric);
        return -1;
    }
    if (q->health && step_health_by_check (by, err, errlen))
        return -1;
    if (dir_only && dir_from_name (dir_only) < 0) {
        snprintf (err, errlen, "--direction '%.32s': use read, write or trim", dir_only);
        return -1;
    }
    if (report_where_parse (where, "--where", q->conds, &q->nconds, err, errlen))
        return -1;
    if (by && !q->health && groups_key_check (by, err, errlen))
        return -1;
    if (q->since && (!json_is_integer (q->since) || json_integer_value (q->since) < 0)) {
        snprintf (err, errlen, "'since_ns' must be a time in ns since the epoch");
        return -1;
    }
    return 0;
}

/* The ended runs since q->since of the plans q names, oldest first:
   [{run, time_ns, plan, origin}...], or NULL with err (a database
   error). */
static json_t *
s_runs (const history_q_t *q, char *err, size_t errlen)
{
    json_t *runs = json_array ();
    sqlite3_stmt *st = store_stmt (q->store,
        "SELECT r.id, r.created_at, p.name, r.origin FROM runs r JOIN plans p ON p.id = r.plan_id "
        "WHERE r.status IN ('complete', 'partial') AND r.created_at >= ? "
        "ORDER BY r.created_at, r.id");
    sqlite3_bind_int64 (st, 1, q->since ? json_integer_value (q->since) : 0);
    int rc;
    while ((rc = store_row (q->store, st, "list the runs")) == 1) {
        const char *plan = (const char *) sqlite3_column_text (st, 2);
        if (q->plan_glob && fnmatch (q->plan_glob, plan, 0) != 0)
            continue;
        json_array_append_new (runs, json_pack ("{s:I, s:I, s:s, s:s}",
            "run", (json_int_t) sqlite3_column_int64 (st, 0),
            "time_ns", (json_int_t) sqlite3_column_int64 (st, 1), "plan", plan,
            "origin", (const char *) sqlite3_column_text (st, 3)));
    }
    sqlite3_reset (st);
    if (rc < 0) {
        json_decref (runs);
        snprintf (err, errlen, "database error listing the runs; see the controller's log");
        return NULL;
    }
    return runs;
}

/* The steps of run whose names match step_glob: [{index, name}...], or
   NULL on a database error (logged). */
static json_t *
s_run_steps (store_t *store, int64_t run, const char *step_glob)
{
    json_t *steps = json_array ();
    sqlite3_stmt *st = store_stmt (store, "SELECT idx, name FROM steps WHERE run_id = ? "
                                          "ORDER BY idx");
    sqlite3_bind_int64 (st, 1, run);
    int rc;
    while ((rc = store_row (store, st, "read the run's steps")) == 1)
        if (fnmatch (step_glob, (const char *) sqlite3_column_text (st, 1), 0) == 0)
            json_array_append_new (steps, json_pack ("{s:i, s:s}", "index",
                sqlite3_column_int (st, 0), "name", (const char *) sqlite3_column_text (st, 1)));
    sqlite3_reset (st);
    if (rc < 0) {
        json_decref (steps);
        return NULL;
    }
    return steps;
}

/* The rows of step s (index idx) of run r, a drive health figure: one a
   group.  Returns 0, or -1 on a database error (logged). */
static int
s_health_rows (history_q_t *q, json_t *r, json_t *s, int idx, const char *when)
{
    int64_t run = json_integer_value (json_object_get (r, "run"));
    json_t *sets = step_health_history (q->store, run, idx, q->metric, q->by);
    if (!sets)
        return -1;
    q->computed++;
    size_t gi;
    json_t *g;
    json_array_foreach (sets, gi, g) {
        if (json_array_size (q->rows) >= HISTORY_ROWS_MAX)
            break;
        json_array_append_new (q->rows, json_pack ("{s:O, s:s, s:O, s:O, s:O, s:O, s:O, "
            "s:s, s:s, s:O, s:O, s:O}", "run", json_object_get (r, "run"), "time", when,
            "time_ns", json_object_get (r, "time_ns"), "plan", json_object_get (r, "plan"),
            "origin", json_object_get (r, "origin"), "step", json_object_get (s, "name"),
            "group", json_object_get (g, "value"), "direction", "all", "metric", q->metric,
            "value", json_object_get (g, "figure"), "drives", json_object_get (g, "drives"),
            "reporting", json_object_get (g, "reporting")));
    }
    json_decref (sets);
    return 0;
}

/* The rows of group g's directions in step s of run r.  Can't fail. */
static void
s_group_rows (history_q_t *q, json_t *r, json_t *s, json_t *g, const char *when)
{
    for (int d = 0; d < DIR_COUNT; d++) {
        const char *dn = dir_name (d);
        json_t *dj = json_object_get (g, dn);
        if (!dj || json_number_value (json_object_get (dj, "ops")) <= 0
            || (q->dir_only && strcmp (q->dir_only, dn) != 0))
            continue;
        if (json_array_size (q->rows) >= HISTORY_ROWS_MAX)
            break;
        json_t *v = s_metric_of (dj, q->metric);
        json_t *row = json_pack ("{s:O, s:s, s:O, s:O, s:O, s:O, s:s, s:s, s:s}",
            "run", json_object_get (r, "run"), "time", when,
            "time_ns", json_object_get (r, "time_ns"), "plan", json_object_get (r, "plan"),
            "origin", json_object_get (r, "origin"), "step", json_object_get (s, "name"),
            "group", json_string_value (json_object_get (g, "value")), "direction", dn,
            "metric", q->metric);
        json_object_set (row, "value", json_is_number (v) ? v : json_null ());
        if (json_is_true (json_object_get (dj, "percentiles_only")))
            json_object_set_new (row, "percentiles_only", json_true ());
        json_array_append_new (q->rows, row);
    }
}

/* The rows of step s (index idx) of run r, a performance figure: one a
   group and direction, the groups from the history index when it holds
   them, else computed as the index was.  Returns 0, -1 on a database
   error (logged), or -2 with err. */
static int
s_perf_rows (history_q_t *q, json_t *r, json_t *s, int idx, const char *when, char *err,
             size_t errlen)
{
    int64_t run = json_integer_value (json_object_get (r, "run"));
    json_t *sets = NULL;
    int got = q->nconds || !q->use_index ? 0 : history_index_read (q->store, run, idx, q->by,
                                                                   &sets);
    if (got < 0)
        return -1;
    if (got)
        q->from_index++;
    else
        q->computed++;
    if (got == 0 && !(sets = history_sets_step (q->store, run, idx, q->by, q->conds, q->nconds,
                                                err, errlen)))
        return err[0] ? -2 : -1;
    size_t gi;
    json_t *g;
    json_array_foreach (sets, gi, g)
        s_group_rows (q, r, s, g, when);
    json_decref (sets);
    return 0;
}

/* The rows of run r's steps.  Returns 0, -1 on a database error
   (logged), or -2 with err. */
static int
s_run_rows (history_q_t *q, json_t *r, char *err, size_t errlen)
{
    int64_t run = json_integer_value (json_object_get (r, "run"));
    json_t *steps = s_run_steps (q->store, run, q->step_glob);
    if (!steps)
        return -1;
    char when[32];
    time_t secs = (time_t) (json_integer_value (json_object_get (r, "time_ns")) / 1000000000);
    struct tm tm;
    gmtime_r (&secs, &tm);
    strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    int rc = 0;
    size_t si;
    json_t *s;
    json_array_foreach (steps, si, s) {
        int idx = (int) json_integer_value (json_object_get (s, "index"));
        rc = q->health ? s_health_rows (q, r, s, idx, when)
                       : s_perf_rows (q, r, s, idx, when, err, errlen);
        if (rc)
            break;
    }
    json_decref (steps);
    return rc;
}

json_t *
history_json (store_t *store, json_t *req, char *err, size_t errlen)
{
    history_q_t q = { .store = store };
    if (s_request (req, &q, err, errlen))
        return NULL;
    /* The runs first: the per-step queries below reuse cached statements. */
    json_t *runs = s_runs (&q, err, errlen);
    if (!runs)
        return NULL;
    q.rows = json_array ();
    size_t ri;
    json_t *r;
    json_array_foreach (runs, ri, r) {
        int rc = s_run_rows (&q, r, err, errlen);
        if (rc == -1)
            /* The run whose read failed is named: its figures are not
               taken for none. */
            snprintf (err, errlen, "database error reading run %lld; see the controller's log",
                      (long long) json_integer_value (json_object_get (r, "run")));
        if (rc) {
            json_decref (q.rows);
            json_decref (runs);
            return NULL;
        }
    }
    json_decref (runs);
    /* Its unit: the CLI formats by it and decides nothing. */
    json_t *out = json_pack ("{s:s, s:s, s:s, s:s?, s:o, s:{s:I, s:I}}", "metric", q.metric,
                             "unit", q.health ? step_health_metric_unit (q.metric)
                                              : compare_metric_unit (q.metric),
                             "step", q.step_glob, "by", q.by, "rows", q.rows, "steps",
                             "indexed", q.from_index, "computed", q.computed);
    if (json_array_size (q.rows) >= HISTORY_ROWS_MAX)
        json_object_set_new (out, "truncated", json_sprintf ("stopped at %d rows; narrow it with "
                             "--since, --step or --where", HISTORY_ROWS_MAX));
    return out;
}
