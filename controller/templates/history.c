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
metric_of (json_t *dir, const char *metric)
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

json_t *
history_json (store_t *store, json_t *req, char *err, size_t errlen)
{
    const char *step_glob = json_string_value (json_object_get (req, "step"));
    const char *plan_glob = json_string_value (json_object_get (req, "plan"));
    const char *metric = json_string_value (json_object_get (req, "metric"));
    const char *by = json_string_value (json_object_get (req, "by"));
    const char *dir_only = json_string_value (json_object_get (req, "direction"));
    json_t *where = json_object_get (req, "where");
    bool use_index = !json_is_false (json_object_get (req, "index"));
    json_int_t from_index = 0, computed = 0;
    json_t *since = json_object_get (req, "since_ns");
    if (!step_glob)
        step_glob = "*";
    if (!metric)
        metric = "p99";
    bool known = false;
    for (size_t i = 0; i < sizeof s_history_metrics / sizeof *s_history_metrics; i++)
        known |= strcmp (metric, s_history_metrics[i]) == 0;
    /* A drive health figure (step_health.h) rather than a performance one. */
    bool health = step_health_is_metric (metric);
    if (!known && !health) {
        snprintf (err, errlen, "--metric '%.32s': use iops, bw, ops, errors, p50, p90, p95, p99, "
                  "p99.9, p99.99, mean, min, max or stddev, or a drive health figure: %s",
                  metric, step_health_metrics_text ());
        return NULL;
    }
    if (health && (json_array_size (where) || dir_only)) {
        snprintf (err, errlen, "--metric %s is a drive health figure: --where and --direction "
                  "do not apply to it (group it with --by)", metric);
        return NULL;
    }
    if (health && step_health_by_check (by, err, errlen))
        return NULL;
    if (dir_only && dir_from_name (dir_only) < 0) {
        snprintf (err, errlen, "--direction '%.32s': use read, write or trim", dir_only);
        return NULL;
    }
    match_cond_t conds[MATCH_CONDS_MAX];
    int nconds = 0;
    if (report_where_parse (where, "--where", conds, &nconds, err, errlen))
        return NULL;
    if (by && !health && groups_key_check (by, err, errlen))
        return NULL;
    if (since && (!json_is_integer (since) || json_integer_value (since) < 0)) {
        snprintf (err, errlen, "'since_ns' must be a time in ns since the epoch");
        return NULL;
    }

    /* The runs first: the per-step queries below reuse cached statements. */
    json_t *runs = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT r.id, r.created_at, p.name, r.origin FROM runs r JOIN plans p ON p.id = r.plan_id "
        "WHERE r.status IN ('complete', 'partial') AND r.created_at >= ? "
        "ORDER BY r.created_at, r.id");
    sqlite3_bind_int64 (st, 1, since ? json_integer_value (since) : 0);
    int rc;
    while ((rc = store_row (store, st, "list the runs")) == 1) {
        const char *plan = (const char *) sqlite3_column_text (st, 2);
        if (plan_glob && fnmatch (plan_glob, plan, 0) != 0)
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

    json_t *rows = json_array (), *steps = NULL;
    size_t ri;
    json_t *r;
    json_array_foreach (runs, ri, r) {
        int64_t run = json_integer_value (json_object_get (r, "run"));
        steps = json_array ();
        st = store_stmt (store, "SELECT idx, name FROM steps WHERE run_id = ? ORDER BY idx");
        sqlite3_bind_int64 (st, 1, run);
        while ((rc = store_row (store, st, "read the run's steps")) == 1)
            if (fnmatch (step_glob, (const char *) sqlite3_column_text (st, 1), 0) == 0)
                json_array_append_new (steps, json_pack ("{s:i, s:s}", "index",
                    sqlite3_column_int (st, 0), "name", (const char *) sqlite3_column_text (st, 1)));
        sqlite3_reset (st);
        if (rc < 0)
            goto db_error;
        char when[32];
        time_t secs = (time_t) (json_integer_value (json_object_get (r, "time_ns")) / 1000000000);
        struct tm tm;
        gmtime_r (&secs, &tm);
        strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        size_t si;
        json_t *s;
        json_array_foreach (steps, si, s) {
            int idx = (int) json_integer_value (json_object_get (s, "index"));
            if (health) {
                json_t *sets = step_health_history (store, run, idx, metric, by);
                if (!sets)
                    goto db_error;
                computed++;
                size_t gi;
                json_t *g;
                json_array_foreach (sets, gi, g) {
                    if (json_array_size (rows) >= HISTORY_ROWS_MAX)
                        break;
                    json_array_append_new (rows, json_pack ("{s:O, s:s, s:O, s:O, s:O, s:O, s:O, "
                        "s:s, s:s, s:O, s:O, s:O}", "run", json_object_get (r, "run"), "time", when,
                        "time_ns", json_object_get (r, "time_ns"), "plan", json_object_get (r, "plan"),
                        "origin", json_object_get (r, "origin"), "step", json_object_get (s, "name"),
                        "group", json_object_get (g, "value"), "direction", "all", "metric", metric,
                        "value", json_object_get (g, "figure"), "drives", json_object_get (g, "drives"),
                        "reporting", json_object_get (g, "reporting")));
                }
                json_decref (sets);
                continue;
            }
            /* (group, its directions) of this step: from the index when
               it holds them, else computed as the index was. */
            json_t *sets = NULL;
            int got = nconds || !use_index ? 0 : history_index_read (store, run, idx, by, &sets);
            if (got < 0)
                goto db_error;
            if (got)
                from_index++;
            else
                computed++;
            if (got == 0 && !(sets = history_sets_step (store, run, idx, by, conds, nconds, err,
                                                        errlen))) {
                if (err[0]) {
                    json_decref (steps);
                    json_decref (rows);
                    json_decref (runs);
                    return NULL;
                }
                goto db_error;
            }
            size_t gi;
            json_t *g;
            json_array_foreach (sets, gi, g)
                for (int d = 0; d < DIR_COUNT; d++) {
                    const char *dn = dir_name (d);
                    json_t *dj = json_object_get (g, dn);
                    if (!dj || json_number_value (json_object_get (dj, "ops")) <= 0
                        || (dir_only && strcmp (dir_only, dn) != 0))
                        continue;
                    if (json_array_size (rows) >= HISTORY_ROWS_MAX)
                        break;
                    json_t *v = metric_of (dj, metric);
                    json_t *row = json_pack ("{s:O, s:s, s:O, s:O, s:O, s:O, s:s, s:s, s:s}",
                        "run", json_object_get (r, "run"), "time", when,
                        "time_ns", json_object_get (r, "time_ns"), "plan", json_object_get (r, "plan"),
                        "origin", json_object_get (r, "origin"), "step", json_object_get (s, "name"),
                        "group", json_string_value (json_object_get (g, "value")), "direction", dn,
                        "metric", metric);
                    json_object_set (row, "value", json_is_number (v) ? v : json_null ());
                    if (json_is_true (json_object_get (dj, "percentiles_only")))
                        json_object_set_new (row, "percentiles_only", json_true ());
                    json_array_append_new (rows, row);
                }
            json_decref (sets);
        }
        json_decref (steps);
    }
    json_decref (runs);
    /* Its unit: the CLI formats by it and decides nothing. */
    json_t *out = json_pack ("{s:s, s:s, s:s, s:s?, s:o, s:{s:I, s:I}}", "metric", metric,
                             "unit", health ? step_health_metric_unit (metric)
                                            : compare_metric_unit (metric), "step", step_glob,
                             "by", by, "rows", rows, "steps", "indexed", from_index,
                             "computed", computed);
    if (json_array_size (rows) >= HISTORY_ROWS_MAX)
        json_object_set_new (out, "truncated", json_sprintf ("stopped at %d rows; narrow it with "
                             "--since, --step or --where", HISTORY_ROWS_MAX));
    return out;

db_error:
    /* The run whose read failed is named: its figures are not taken for
       none. */
    snprintf (err, errlen, "database error reading run %lld; see the controller's log",
              (long long) json_integer_value (json_object_get (r, "run")));
    json_decref (steps);
    json_decref (rows);
    json_decref (runs);
    return NULL;
}

