/*  rounds.c: a run's rounds ([iofleet] rounds= and steady_state=,
    common/rounds.h): each drive's tracked figure per round and its
    steady window (table steady_drives, 017_rounds.sql), whether a round
    leaves a drive unsteady, and the rounds' part of the report.

    The figure of a drive in a round is taken from the tracked step's
    results, over all its directions: iops and bw summed, mean weighted by
    each direction's ops.  The rule itself is rounds.c's in common/.
*/
#include "controller.h"
#include "rounds.h"
#include "log.h"
#include "util.h"
#include "rounds_steady.h"
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The figures of a drive as stored (a JSON array, null for a round it
   had no figure) into y (NaN there).  Returns how many. */
static int
figures_of (json_t *arr, double *y, int cap)
{
    int n = 0;
    size_t i;
    json_t *v;
    json_array_foreach (arr, i, v) {
        if (n == cap)
            break;
        y[n++] = json_is_number (v) ? json_number_value (v) : NAN;
    }
    return n;
}

static void
bind_or_null (sqlite3_stmt *st, int col, double v)
{
    if (isfinite (v))
        sqlite3_bind_double (st, col, v);
    else
        sqlite3_bind_null (st, col);
}

int
rounds_steady_track (store_t *store, int64_t run, int step_idx, const char *prefix, int round,
              const rounds_rule_t *rule)
{
    /* The statement's text is chosen among literals (store_stmt caches by
       address). */
    sqlite3_stmt *st;
    switch (rule->metric) {
    case ROUNDS_BW:
        st = store_stmt (store,
            "SELECT r.agent_id, r.target, SUM(r.bw), d.figures, d.steady_round FROM results r "
            "LEFT JOIN steady_drives d ON d.run_id = r.run_id AND d.agent_id = r.agent_id "
            " AND d.target = r.target WHERE r.run_id = ? AND r.step_idx = ? "
            "AND substr(r.target, 1, length(?3)) = ?3 GROUP BY r.agent_id, r.target");
        break;
    case ROUNDS_MEAN:
        st = store_stmt (store,
            "SELECT r.agent_id, r.target, SUM(r.lat_mean * r.ops) / NULLIF(SUM(r.ops), 0), "
            " d.figures, d.steady_round FROM results r "
            "LEFT JOIN steady_drives d ON d.run_id = r.run_id AND d.agent_id = r.agent_id "
            " AND d.target = r.target WHERE r.run_id = ? AND r.step_idx = ? "
            "AND substr(r.target, 1, length(?3)) = ?3 GROUP BY r.agent_id, r.target");
        break;
    default:
        st = store_stmt (store,
            "SELECT r.agent_id, r.target, SUM(r.iops), d.figures, d.steady_round FROM results r "
            "LEFT JOIN steady_drives d ON d.run_id = r.run_id AND d.agent_id = r.agent_id "
            " AND d.target = r.target WHERE r.run_id = ? AND r.step_idx = ? "
            "AND substr(r.target, 1, length(?3)) = ?3 GROUP BY r.agent_id, r.target");
        break;
    }
    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step_idx);
    sqlite3_bind_text (st, 3, prefix, -1, SQLITE_TRANSIENT);
    /* Collected first: the writes below use statements of their own. */
    typedef struct {
        int64_t agent;
        char *target;
        json_t *figures;
        int steady_round;
        rounds_window_t w;
        bool judged;
    } drive_t;
    drive_t *d = NULL;
    size_t n = 0, cap = 0;
    int rc;
    double y[ROUNDS_MAX];
    while ((rc = store_row (store, st, "read a round's figures")) == 1) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            drive_t *bigger = realloc (d, cap * sizeof *d);
            if (!bigger) {
                rc = -1;
                break;
            }
            d = bigger;
        }
        drive_t *x = &d[n];
        memset (x, 0, sizeof *x);
        x->agent = sqlite3_column_int64 (st, 0);
        x->target = strdup ((const char *) sqlite3_column_text (st, 1));
        const char *old = (const char *) sqlite3_column_text (st, 3);
        x->figures = old ? json_loads (old, 0, NULL) : json_array ();
        if (!x->target || !json_is_array (x->figures)) {
            free (x->target);
            json_decref (x->figures);
            rc = -1;
            break;
        }
        n++;
        /* Rounds it had no figure in are null; a round done again (a
           restart) replaces its figure. */
        while (json_array_size (x->figures) < (size_t) round)
            json_array_append_new (x->figures, json_null ());
        while (json_array_size (x->figures) > (size_t) round)
            json_array_remove (x->figures, json_array_size (x->figures) - 1);
        double v = sqlite3_column_double (st, 2);
        json_array_set_new (x->figures, (size_t) round - 1,
                            sqlite3_column_type (st, 2) == SQLITE_NULL || !isfinite (v)
                                ? json_null () : json_real (v));
        int k = figures_of (x->figures, y, ROUNDS_MAX);
        x->steady_round = rounds_first_steady (rule, y, k, &x->w);
        x->judged = x->steady_round > 0 || rounds_judge (rule, y, k, &x->w);
    }
    sqlite3_reset (st);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        drive_t *x = &d[i];
        char *text = json_dumps (x->figures, JSON_COMPACT);
        st = store_stmt (store,
            "INSERT OR REPLACE INTO steady_drives (run_id, agent_id, target, figures, "
            " steady_round, mean, range_pct, slope, excursion_pct) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int64 (st, 2, x->agent);
        sqlite3_bind_text (st, 3, x->target, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text (st, 4, text ? text : "[]", -1, SQLITE_TRANSIENT);
        if (x->steady_round)
            sqlite3_bind_int (st, 5, x->steady_round);
        if (x->judged) {
            bind_or_null (st, 6, x->w.mean);
            bind_or_null (st, 7, x->w.range_pct);
            bind_or_null (st, 8, x->w.slope);
            bind_or_null (st, 9, x->w.excursion_pct);
        }
        free (text);
        if (store_step_done (store, st, "store a drive's steady state"))
            rc = -1;
    }
    for (size_t i = 0; i < n; i++) {
        free (d[i].target);
        json_decref (d[i].figures);
    }
    free (d);
    if (rc < 0)
        return -1;
    /* Drives of earlier rounds without a figure in this one: null. */
    st = store_stmt (store,
        "UPDATE steady_drives SET figures = json_insert(figures, '$[#]', NULL) "
        "WHERE run_id = ? AND json_array_length(figures) < ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, round);
    for (int k = 0; k < round; k++) {
        if (store_step_done (store, st, "mark rounds without a figure"))
            return -1;
        if (sqlite3_changes (store_db (store)) == 0)
            break;
        sqlite3_reset (st);
    }
    return 0;
}

int
rounds_steady_unsteady (store_t *store, int64_t run, int round)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT COUNT(*) FROM steady_drives WHERE run_id = ? AND steady_round IS NULL "
        "AND json_type(figures, '$[' || (? - 1) || ']') IN ('real', 'integer')");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, round);
    int n = store_row (store, st, "count the drives not steady") == 1
            ? sqlite3_column_int (st, 0) : -1;
    sqlite3_reset (st);
    return n;
}

json_t *
rounds_steady_report (store_t *store, int64_t run, bool *unsteady, char *err, size_t errlen)
{
    *unsteady = false;
    sqlite3_stmt *st = store_stmt (store,
        "SELECT r.rounds, r.steady_rule, (SELECT MAX(round) FROM steps s WHERE s.run_id = r.id "
        " AND s.status IN ('complete', 'partial', 'failed')) FROM runs r WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    int rc = store_row (store, st, "read the run's rounds");
    if (rc != 1 || sqlite3_column_type (st, 0) == SQLITE_NULL) {
        sqlite3_reset (st);
        if (rc < 0)
            snprintf (err, errlen, "database error reading the rounds of run %lld",
                      (long long) run);
        return rc < 0 ? NULL : json_null ();
    }
    json_t *o = json_pack ("{s:i, s:i}", "rounds_max", sqlite3_column_int (st, 0),
                           "rounds_run", sqlite3_column_int (st, 2));
    rounds_rule_t rule;
    char why[256];
    bool has_rule = sqlite3_column_type (st, 1) != SQLITE_NULL
                    && rounds_rule_parse ((const char *) sqlite3_column_text (st, 1), &rule, why,
                                          sizeof why) == 0;
    sqlite3_reset (st);
    if (!has_rule)
        return o;
    json_object_set_new (o, "steady_state", json_pack ("{s:s, s:s, s:i, s:f, s:f}",
        "step", rule.step, "metric", rounds_metric_names[rule.metric], "window", rule.window,
        "range_pct", rule.range_pct, "slope_pct", rule.slope_pct));
    json_t *drives = json_array ();
    st = store_stmt (store,
        "SELECT a.name, d.agent_id, d.target, d.figures, d.steady_round, d.mean, d.range_pct, "
        " d.slope, d.excursion_pct FROM steady_drives d LEFT JOIN agents a ON a.id = d.agent_id "
        "WHERE d.run_id = ? ORDER BY a.name, d.target");
    sqlite3_bind_int64 (st, 1, run);
    int nsteady = 0, nnot = 0;
    while ((rc = store_row (store, st, "read the drives' steady state")) == 1) {
        json_t *fig = json_loads ((const char *) sqlite3_column_text (st, 3), 0, NULL);
        json_t *dj = json_pack ("{s:s, s:I, s:s, s:o}",
            "agent", sqlite3_column_text (st, 0) ? (const char *) sqlite3_column_text (st, 0) : "",
            "agent_id", (json_int_t) sqlite3_column_int64 (st, 1),
            "target", (const char *) sqlite3_column_text (st, 2),
            "figures", fig ? fig : json_array ());
        bool steady = sqlite3_column_type (st, 4) != SQLITE_NULL;
        json_object_set_new (dj, "steady", json_boolean (steady));
        json_object_set_new (dj, "steady_round", steady ? json_integer (sqlite3_column_int (st, 4))
                                                        : json_null ());
        static const char *const keys[] = { "mean", "range_pct", "slope", "excursion_pct" };
        json_t *w = json_object ();
        for (int k = 0; k < 4; k++)
            if (sqlite3_column_type (st, 5 + k) != SQLITE_NULL)
                json_object_set_new (w, keys[k], json_real (sqlite3_column_double (st, 5 + k)));
        if (steady) {
            int end = sqlite3_column_int (st, 4);
            json_object_set_new (w, "rounds", json_pack ("[i, i]", end - rule.window + 1, end));
        }
        json_object_set_new (dj, steady ? "window" : "last_window", w);
        if (steady)
            nsteady++;
        else
            nnot++;
        json_array_append_new (drives, dj);
    }
    sqlite3_reset (st);
    if (rc < 0) {
        json_decref (drives);
        json_decref (o);
        snprintf (err, errlen, "database error reading the steady state of run %lld",
                  (long long) run);
        return NULL;
    }
    json_object_set_new (o, "drives", drives);
    json_object_set_new (o, "steady", json_integer (nsteady));
    json_object_set_new (o, "not_steady", json_integer (nnot));
    *unsteady = nnot > 0;
    return o;
}
