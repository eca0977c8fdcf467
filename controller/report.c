/*  report.c: the report of a run (the read path), see report.h.

    Every figure comes from the database: the step's results and
    fleet_results (step_results.c), its intervals (series.c), its groups
    (groups.c), its SLA verdict (step_sla.c) and its sweeps' curves
    (sweeps.c).  Fleet figures are merges of histograms, never averages of
    percentiles.
*/
#include "controller.h"
#include "histogram.h"
#include "report.h"
#include "series.h"
#include "sla.h"
#include "step_sla.h"
#include "sweeps.h"

#include <string.h>

static const double s_pcts[] = { 50, 90, 95, 99, 99.9, 99.99 };
static const char *s_pct_keys[] = { "p50", "p90", "p95", "p99", "p99.9", "p99.99" };

static json_t *
percentiles_json (const histogram_t *h, const double *extra, int nextra)
{
    json_t *p = json_object ();
    for (size_t i = 0; i < sizeof s_pcts / sizeof s_pcts[0]; i++)
        json_object_set_new (p, s_pct_keys[i],
                             json_integer ((json_int_t) histogram_percentile (h, s_pcts[i])));
    for (int i = 0; i < nextra; i++) {
        char key[32];
        snprintf (key, sizeof key, "p%g", extra[i]);
        json_object_set_new (p, key, json_integer ((json_int_t) histogram_percentile (h, extra[i])));
    }
    return p;
}

static json_t *
lat_stats_json (const histogram_t *h, const double *extra, int nextra)
{
    json_t *o = json_pack ("{s:I, s:I, s:f, s:f, s:I}",
        "min", (json_int_t) (h->count ? h->min : 0), "max", (json_int_t) h->max,
        "mean", histogram_mean (h), "stddev", histogram_stddev (h),
        "N", (json_int_t) h->count);
    json_object_set_new (o, "percentiles", percentiles_json (h, extra, nextra));
    return o;
}

/* The latency figures of one direction: "lat_ns" and "percentiles" are
   clat (the default figure, as fio's), "latency" holds slat, clat and lat.
   blobs[] are the clat, slat, lat columns. */
static void latency_json (json_t *o, const histogram_t h[LK_N], const double *extra, int nextra);

static void
add_latency (json_t *o, sqlite3_stmt *st, int col_clat, int col_slat, int col_lat,
             const double *extra, int nextra)
{
    static _Thread_local histogram_t h[LK_N];
    int cols[LK_N] = { col_clat, col_slat, col_lat };
    for (int k = 0; k < LK_N; k++) {
        const void *blob = sqlite3_column_blob (st, cols[k]);
        int len = sqlite3_column_bytes (st, cols[k]);
        if (!blob || len <= 0 || histogram_decode (&h[k], blob, (size_t) len) != 0)
            histogram_reset (&h[k]);
    }
    latency_json (o, h, extra, nextra);
}

/* The latency figures of histograms h (clat, slat, lat) into o, as
   add_latency.  Can't fail. */
static void
latency_json (json_t *o, const histogram_t h[LK_N], const double *extra, int nextra)
{
    const histogram_t *c = &h[LK_CLAT];
    json_object_set_new (o, "lat_ns", json_pack ("{s:I, s:I, s:f, s:f}",
        "min", (json_int_t) (c->count ? c->min : 0), "max", (json_int_t) c->max,
        "mean", histogram_mean (c), "stddev", histogram_stddev (c)));
    json_object_set_new (o, "percentiles", percentiles_json (c, extra, nextra));
    json_object_set_new (o, "histogram_count", json_integer ((json_int_t) c->count));
    json_object_set_new (o, "latency", json_pack ("{s:o, s:o, s:o}",
        "slat", lat_stats_json (&h[LK_SLAT], extra, nextra),
        "clat", lat_stats_json (c, extra, nextra),
        "lat", lat_stats_json (&h[LK_LAT], extra, nextra)));
}

/* For imported fio results (stored percentiles in column col_pct): fio's
   own min/max/mean/stddev, and, when no histogram came with them, fio's
   percentiles as they were, marked "percentiles_only".  col_stats < 0
   when the row has no stats columns (the fleet's). */
static void
add_imported (json_t *o, sqlite3_stmt *st, int col_pct, int col_stats)
{
    if (sqlite3_column_type (st, col_pct) == SQLITE_NULL)
        return;
    if (col_stats >= 0)
        json_object_set_new (o, "lat_ns", json_pack ("{s:I, s:I, s:f, s:f}",
            "min", (json_int_t) sqlite3_column_int64 (st, col_stats),
            "max", (json_int_t) sqlite3_column_int64 (st, col_stats + 1),
            "mean", sqlite3_column_double (st, col_stats + 2),
            "stddev", sqlite3_column_double (st, col_stats + 3)));
    if (json_integer_value (json_object_get (o, "histogram_count")) > 0)
        return;
    json_t *pct = json_loads ((const char *) sqlite3_column_text (st, col_pct),
                              JSON_DECODE_ANY, NULL);
    json_object_set_new (o, "percentiles", pct ? pct : json_null ());
    json_object_set_new (o, "percentiles_only", json_true ());
    json_object_set_new (o, "latency", json_null ());    /* no histograms to show */
    if (col_stats < 0)
        json_object_set_new (o, "lat_ns", json_null ());
}

json_t *
report_selection_keys (store_t *store, int64_t run, int step, json_t *s)
{
    json_t *sel = json_object ();
    json_t *names = json_object ();         /* agent -> {target name: true} */
    size_t ai, ti;
    json_t *aj, *tj;
    json_array_foreach (json_object_get (s, "agents"), ai, aj) {
        const char *an = json_string_value (json_object_get (aj, "agent"));
        json_t *set = json_object ();
        json_array_foreach (json_object_get (aj, "targets"), ti, tj) {
            const char *tn = json_string_value (json_object_get (tj, "target"));
            char key[MSG_NAME_MAX + MSG_TEXT_MAX + 32];
            if (!an || !tn)
                continue;
            snprintf (key, sizeof key, "%s\x1f%s", an, tn);
            json_object_set_new (sel, key, json_true ());
            json_object_set_new (set, tn, json_true ());
        }
        if (an)
            json_object_set_new (names, an, set);
        else
            json_decref (set);
    }
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, sa.targets FROM step_agents sa JOIN agents a ON a.id = sa.agent_id "
        "WHERE sa.run_id = ? AND sa.step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int rc;
    while ((rc = store_row (store, st, "read the step's agents' targets")) == 1) {
        const char *an = (const char *) sqlite3_column_text (st, 0);
        json_t *set = json_object_get (names, an);
        json_t *tl = set ? json_loads ((const char *) sqlite3_column_text (st, 1), 0, NULL) : NULL;
        size_t i;
        json_t *t;
        json_array_foreach (tl, i, t) {
            char fallback[32], key[MSG_NAME_MAX + 40];
            snprintf (fallback, sizeof fallback, "#%zu", i);   /* save_result's name */
            const char *tn = json_string_value (t);
            if (!json_object_get (set, tn ? tn : fallback) && !json_object_get (set, fallback))
                continue;
            snprintf (key, sizeof key, "%s\x1f#%zu", an, i);
            json_object_set_new (sel, key, json_true ());
        }
        json_decref (tl);
    }
    sqlite3_reset (st);
    json_decref (names);
    if (rc < 0)
        json_decref (sel);
    return rc < 0 ? NULL : sel;
}

/* The number of agents of a step that delivered a snapshot of a selected
   target (sel as report_selection_keys makes it), or -1 on a database
   error (logged). */
static int
agents_delivering (store_t *store, int64_t run, int step, json_t *sel)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT DISTINCT a.name, s.target FROM snapshots s JOIN agents a ON a.id = s.agent_id "
        "WHERE s.run_id = ? AND s.step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    json_t *agents = json_object ();
    int rc;
    while ((rc = store_row (store, st, "read the agents that delivered")) == 1) {
        char key[MSG_NAME_MAX + 40];
        const char *an = (const char *) sqlite3_column_text (st, 0);
        snprintf (key, sizeof key, "%s\x1f#%d", an, sqlite3_column_int (st, 1));
        if (json_object_get (sel, key))
            json_object_set_new (agents, an, json_true ());
    }
    sqlite3_reset (st);
    int n = (int) json_object_size (agents);
    json_decref (agents);
    return rc < 0 ? -1 : n;
}

/* Whether a stored snapshot row of agent's target is selected (arg: the
   keys of report_selection_keys): group 0, else -1.  Can't fail. */
static int
pick_selected (void *arg, const char *agent, int target)
{
    char key[MSG_NAME_MAX + 40];
    snprintf (key, sizeof key, "%s\x1f#%d", agent, target);
    return json_object_get ((json_t *) arg, key) ? 0 : -1;
}

/* The fleet time series of a step: interval k merged over every agent
   (ops and bytes summed, clat histograms merged), and the common window:
   the intervals every agent that measured took part in.  Adds "intervals",
   "window" and "outside_window" to step.  sel (report_selection_keys; NULL:
   all): only the selected targets count.  Returns 0, or -1 on a database
   error (logged) or when out of memory; step then has none of them. */
static int
add_intervals (store_t *store, int64_t run, int step, json_t *step_json, json_t *sel)
{
    json_t *intervals = NULL;
    int nagents_total = 0;
    if (sel) {
        nagents_total = agents_delivering (store, run, step, sel);
        if (series_scan (store, run, step, pick_selected, sel, 1, SERIES_JSON_REPORT, &intervals)
            || nagents_total < 0) {
            json_decref (intervals);
            return -1;
        }
    } else {
        /* The agents that delivered anything (one seek each). */
        sqlite3_stmt *st = store_stmt (store,
            "SELECT COUNT(*) FROM step_agents sa WHERE sa.run_id = ? AND sa.step_idx = ? "
            "AND EXISTS (SELECT 1 FROM snapshots s WHERE s.run_id = sa.run_id "
            " AND s.step_idx = sa.step_idx AND s.agent_id = sa.agent_id)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, step);
        int rc = store_row (store, st, "count the agents that delivered");
        if (rc == 1)
            nagents_total = sqlite3_column_int (st, 0);
        sqlite3_reset (st);
        if (rc < 0)
            return -1;
        intervals = json_array ();
        rc = series_rows (store, run, step, intervals);
        if (rc == 0) {
            json_decref (intervals);
            rc = series_scan (store, run, step, NULL, NULL, 1, SERIES_JSON_REPORT, &intervals);
        }
        if (rc < 0) {
            json_decref (intervals);
            return -1;
        }
    }
    /* The common window: the intervals every agent that measured took
       part in, from the first such to the last. */
    int first_full = -1, last_full = -1;
    json_int_t win_start = -1, win_end = -1;
    size_t k;
    json_t *iv;
    json_array_foreach (intervals, k, iv) {
        if (json_integer_value (json_object_get (iv, "agents")) != nagents_total)
            continue;
        int seq = (int) json_integer_value (json_object_get (iv, "seq"));
        if (first_full < 0) {
            first_full = seq;
            win_start = json_integer_value (json_object_get (iv, "start_ns"));
        }
        last_full = seq;
        win_end = json_integer_value (json_object_get (iv, "end_ns"));
    }
    json_object_set_new (step_json, "intervals", intervals);
    if (first_full >= 0)
        json_object_set_new (step_json, "window", json_pack ("{s:I, s:I, s:i, s:i}",
            "start_ns", win_start, "end_ns", win_end,
            "first_seq", first_full, "last_seq", last_full));
    else
        json_object_set_new (step_json, "window", json_null ());
    /* Agents of the step that were not measuring through the whole window;
       one that refused the step is not in it at all (refused_agents). */
    json_t *outside = json_array ();
    size_t i;
    json_t *a;
    json_array_foreach (json_object_get (step_json, "agents"), i, a) {
        json_int_t n = json_integer_value (json_object_get (a, "snapshots"));
        const char *status = json_string_value (json_object_get (a, "status"));
        if (n == 0 && status && strcmp (status, "refused") == 0)
            continue;
        if (first_full < 0 || n < last_full - first_full + 1)
            json_array_append_new (outside, json_pack ("{s:O, s:O, s:O}",
                "agent", json_object_get (a, "agent"), "status", json_object_get (a, "status"),
                "message", json_object_get (a, "message")));
    }
    json_object_set_new (step_json, "outside_window", outside);
    return 0;
}

/* The step's percentile_list, from its stored spec. */
static int
step_percentiles (json_t *job, double *out, int max)
{
    json_t *list = json_object_get (job, "percentile_list");
    int n = 0;
    size_t i;
    json_t *v;
    json_array_foreach (list, i, v)
        if (n < max)
            out[n++] = json_number_value (v);
    /* The SLA's percentiles too, so every condition has its figure. */
    sla_t sla;
    char err[256];
    const char *text = json_string_value (json_object_get (job, "sla"));
    if (text && sla_parse (text, &sla, err, sizeof err) == 0)
        for (int k = 0; k < sla.n && n < max; k++)
            if (sla.c[k].percentile > 0)
                out[n++] = sla.c[k].percentile;
    return n;
}

/* Moves o's direction objects after its other keys, in direction order
   (rows come sorted by name: read, trim, write).  Can't fail. */
static void
dirs_in_order (json_t *o)
{
    for (int d = 0; d < DIR_COUNT; d++) {
        json_t *x = json_object_get (o, dir_name (d));
        if (!x)
            continue;
        json_incref (x);
        json_object_del (o, dir_name (d));
        json_object_set_new (o, dir_name (d), x);
    }
}

/* The spec of job k of a step (steps.spec: its first job, with "jobs"
   listing every job when they run together), or NULL.  Can't fail. */
static json_t *
spec_job (json_t *spec, int k)
{
    json_t *jobs = json_object_get (spec, "jobs");
    if (json_is_array (jobs))
        return json_array_get (jobs, (size_t) k);
    return k == 0 ? spec : NULL;
}

static int
spec_njobs (json_t *spec)
{
    json_t *jobs = json_object_get (spec, "jobs");
    return json_is_array (jobs) ? (int) json_array_size (jobs) : 1;
}

/* Does a job of the step have a latency_target?  Can't fail. */
static bool
spec_latency_target (json_t *spec)
{
    for (int k = 0; k < spec_njobs (spec); k++)
        if (json_integer_value (json_object_get (spec_job (spec, k), "latency_target_ns")) > 0)
            return true;
    return false;
}

/* latency_target: what the agent's search found, for each job of the step
   that has a target: {"job", "target_ns", "percentile", "window_ns",
   "depth"}, depth null where the agent reported none (refused, lost or
   failed before DONE).  Returns a new array; NULL on allocation failure or
   a database error (logged). */
static json_t *
agent_latency_json (store_t *store, int64_t run, int step, int64_t agent, json_t *spec)
{
    json_t *list = json_array ();
    for (int k = 0; list && k < spec_njobs (spec); k++) {
        json_t *jj = spec_job (spec, k);
        json_int_t target = json_integer_value (json_object_get (jj, "latency_target_ns"));
        if (target <= 0)
            continue;
        json_t *e = json_pack ("{s:O?, s:I, s:O?, s:O?, s:n}",
            "job", json_object_get (jj, "name"),
            "target_ns", target,
            "percentile", json_object_get (jj, "latency_percentile"),
            "window_ns", json_object_get (jj, "latency_window_ns"),
            "depth");
        sqlite3_stmt *st = store_stmt (store, "SELECT depth FROM latency_depths WHERE run_id = ? "
                                              "AND step_idx = ? AND agent_id = ? AND job_idx = ?");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, step);
        sqlite3_bind_int64 (st, 3, agent);
        sqlite3_bind_int (st, 4, k);
        int rc = store_row (store, st, "read the agent's latency depth");
        if (rc == 1)
            json_object_set_new (e, "depth", json_integer (sqlite3_column_int64 (st, 0)));
        sqlite3_reset (st);
        json_array_append_new (list, e);
        if (rc < 0) {
            json_decref (list);
            return NULL;
        }
    }
    return list;
}

json_t *
report_step_agents (store_t *store, int64_t run, int step, json_t *spec, const double *extra,
                  int nextra)
{
    bool latency = spec && spec_latency_target (spec);
    json_t *agents = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT sa.agent_id, a.name, a.hostname, sa.status, sa.message, sa.snapshots, "
        " sa.actual_start, "
        " (SELECT COUNT(DISTINCT seq) FROM snapshots s WHERE s.run_id = sa.run_id "
        "   AND s.step_idx = sa.step_idx AND s.agent_id = sa.agent_id), "
        " sa.clock_offset_ns, sa.clock_delay_ns, "
        " (SELECT i.hash FROM run_inventory ri JOIN inventories i ON i.id = ri.inventory_id "
        "   WHERE ri.run_id = sa.run_id AND ri.agent_id = sa.agent_id "
        "   AND ri.step_idx = sa.step_idx), "
        " sa.targets, sa.target_drives, sa.spool_dropped, sa.restarted "
        "FROM step_agents sa JOIN agents a ON a.id = sa.agent_id "
        "WHERE sa.run_id = ? AND sa.step_idx = ? ORDER BY a.name");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int rc;
    while ((rc = store_row (store, st, "read the step's agents")) == 1) {
        int64_t agent_id = sqlite3_column_int64 (st, 0);
        json_t *a = json_pack ("{s:s, s:s, s:s, s:s, s:i, s:i}",
            "agent", (const char *) sqlite3_column_text (st, 1),
            "hostname", (const char *) sqlite3_column_text (st, 2),
            "status", (const char *) sqlite3_column_text (st, 3),
            "message", (const char *) sqlite3_column_text (st, 4),
            "snapshots_reported", sqlite3_column_int (st, 5),
            "snapshots", sqlite3_column_int (st, 7));
        json_object_set_new (a, "spool_dropped", json_integer (sqlite3_column_int (st, 13)));
        json_object_set_new (a, "restarted", json_boolean (sqlite3_column_int (st, 14)));
        if (sqlite3_column_type (st, 6) != SQLITE_NULL) {
            json_object_set_new (a, "actual_start", json_integer (sqlite3_column_int64 (st, 6)));
            json_object_set_new (a, "start_ns", json_integer (sqlite3_column_int64 (st, 6)));
        }
        if (sqlite3_column_type (st, 10) != SQLITE_NULL)
            json_object_set_new (a, "inventory_hash",
                                 json_string ((const char *) sqlite3_column_text (st, 10)));
        if (sqlite3_column_type (st, 8) != SQLITE_NULL) {
            json_object_set_new (a, "clock_offset_ns", json_integer (sqlite3_column_int64 (st, 8)));
            int64_t delay = sqlite3_column_int64 (st, 9);
            json_object_set_new (a, "clock_uncertainty_ns", json_integer ((delay + 1) / 2));
        }
        json_t *targets = json_array ();
        sqlite3_stmt *rs = store_stmt (store,
            "SELECT target, direction, ops, bytes, errors, window_ns, iops, bw, hist, "
            " slat_hist, lat_hist, percentiles, lat_min, lat_max, lat_mean, lat_stddev "
            "FROM results WHERE run_id = ? AND step_idx = ? AND agent_id = ? "
            "ORDER BY target, direction");
        sqlite3_bind_int64 (rs, 1, run);
        sqlite3_bind_int (rs, 2, step);
        sqlite3_bind_int64 (rs, 3, agent_id);
        json_t *cur = NULL;
        double iops = 0, bw = 0;
        int rrc;
        while ((rrc = store_row (store, rs, "read the agent's results")) == 1) {
            const char *tname = (const char *) sqlite3_column_text (rs, 0);
            if (!cur || strcmp (json_string_value (json_object_get (cur, "target")), tname)) {
                cur = json_pack ("{s:s}", "target", tname);
                json_array_append_new (targets, cur);
            }
            json_t *d = json_pack ("{s:I, s:I, s:I, s:f, s:f, s:f}",
                "ops", (json_int_t) sqlite3_column_int64 (rs, 2),
                "bytes", (json_int_t) sqlite3_column_int64 (rs, 3),
                "errors", (json_int_t) sqlite3_column_int64 (rs, 4),
                "window_s", (double) sqlite3_column_int64 (rs, 5) / 1e9,
                "iops", sqlite3_column_double (rs, 6),
                "bw", sqlite3_column_double (rs, 7));
            iops += sqlite3_column_double (rs, 6);
            bw += sqlite3_column_double (rs, 7);
            add_latency (d, rs, 8, 9, 10, extra, nextra);
            add_imported (d, rs, 11, 12);
            json_object_set_new (cur, (const char *) sqlite3_column_text (rs, 1), d);
        }
        sqlite3_reset (rs);
        if (rrc < 0) {
            json_decref (targets);
            json_decref (a);
            rc = -1;
            break;
        }
        size_t ti;
        json_t *tj;
        json_array_foreach (targets, ti, tj)
            dirs_in_order (tj);
        /* What drive each target is (from the inventory at PREPARE). */
        json_t *labels = json_loads ((const char *) sqlite3_column_text (st, 11), 0, NULL);
        json_t *drives = sqlite3_column_type (st, 12) == SQLITE_NULL ? NULL
                       : json_loads ((const char *) sqlite3_column_text (st, 12), 0, NULL);
        json_array_foreach (targets, ti, tj) {
            const char *name = json_string_value (json_object_get (tj, "target"));
            size_t li;
            json_t *lj;
            json_array_foreach (labels, li, lj)
                if (name && json_string_value (lj) && strcmp (json_string_value (lj), name) == 0) {
                    json_t *d = json_array_get (drives, li);
                    if (json_is_object (d))
                        json_object_set (tj, "drive", d);
                    break;
                }
        }
        json_decref (labels);
        json_decref (drives);
        json_object_set_new (a, "targets", targets);
        json_object_set_new (a, "iops", json_real (iops));
        json_object_set_new (a, "bw", json_real (bw));
        json_array_append_new (agents, a);
        if (latency) {
            json_t *lt = agent_latency_json (store, run, step, agent_id, spec);
            if (!lt) {
                rc = -1;
                break;
            }
            json_object_set_new (a, "latency_target", lt);
        }
    }
    sqlite3_reset (st);
    if (rc < 0) {
        json_decref (agents);
        return NULL;
    }
    return agents;
}

/* Which intervals each agent of a step is missing.  The step's intervals
   are 0..N-1, N one past the highest seq any agent delivered; an agent
   that delivered fewer, or was lost or failed, is "incomplete", with its
   "missing_intervals".  Its delivered intervals stay in every figure (the
   rule: what was measured counts, what was not is listed), and the
   step says which agents its figures hold incomplete data of
   ("incomplete_agents").  An agent that refused the step is neither: it
   is listed with its reason in "refused_agents".  Returns 0, or -1 on a
   database error (logged; s then has none of it). */
static int
add_missing (store_t *store, int64_t run, int step, json_t *s)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, s.seq FROM snapshots s JOIN agents a ON a.id = s.agent_id "
        "WHERE s.run_id = ? AND s.step_idx = ? GROUP BY s.agent_id, s.seq");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    json_t *seen = json_object ();             /* agent -> {seq: true} */
    int64_t n = 0;
    int rc;
    while ((rc = store_row (store, st, "read the agents' intervals")) == 1) {
        const char *agent = (const char *) sqlite3_column_text (st, 0);
        int64_t seq = sqlite3_column_int64 (st, 1);
        json_t *set = json_object_get (seen, agent);
        if (!set) {
            set = json_object ();
            json_object_set_new (seen, agent, set);
        }
        char key[24];
        snprintf (key, sizeof key, "%lld", (long long) seq);
        json_object_set_new (set, key, json_true ());
        n = seq + 1 > n ? seq + 1 : n;
    }
    sqlite3_reset (st);
    if (rc < 0) {
        json_decref (seen);
        return -1;
    }
    json_t *incomplete = json_array (), *refused = json_array ();
    size_t i;
    json_t *a;
    json_array_foreach (json_object_get (s, "agents"), i, a) {
        const char *name = json_string_value (json_object_get (a, "agent"));
        const char *status = json_string_value (json_object_get (a, "status"));
        json_t *set = json_object_get (seen, name);
        if (status && strcmp (status, "refused") == 0 && json_object_size (set) == 0) {
            /* It never took part: left out with its reason, not missing
               anything of what the figures hold. */
            json_object_set_new (a, "intervals_expected", json_integer (0));
            json_object_set_new (a, "missing_intervals", json_array ());
            json_object_set_new (a, "incomplete", json_false ());
            json_array_append_new (refused, json_pack ("{s:s?, s:O}", "agent", name,
                                                       "reason", json_object_get (a, "message")));
            continue;
        }
        json_t *missing = json_array ();
        for (int64_t k = 0; k < n && json_array_size (missing) < 100000; k++) {
            char key[24];
            snprintf (key, sizeof key, "%lld", (long long) k);
            if (!json_object_get (set, key))
                json_array_append_new (missing, json_integer (k));
        }
        bool lost = status && (strcmp (status, "lost") == 0 || strcmp (status, "failed") == 0);
        bool inc = json_array_size (missing) > 0 || (lost && json_object_size (set) > 0);
        json_object_set_new (a, "intervals_expected", json_integer (n));
        json_object_set_new (a, "missing_intervals", missing);
        json_object_set_new (a, "incomplete", json_boolean (inc));
        if (inc && json_object_size (set) > 0)
            json_array_append_new (incomplete, json_string (name));
    }
    json_decref (seen);
    json_object_set_new (s, "incomplete_rule", json_string (
        "figures hold every interval that reached the controller; agents with missing "
        "intervals are included and listed in incomplete_agents"));
    json_object_set_new (s, "incomplete_agents", incomplete);
    json_object_set_new (s, "refused_agents", refused);
    return 0;
}

json_t *
report_fleet (store_t *store, int64_t run, int idx, const double *extra, int nextra)
{
    json_t *fleet = json_object ();
    sqlite3_stmt *fs = store_stmt (store,
        "SELECT direction, agents, ops, bytes, errors, iops, bw, hist, slat_hist, lat_hist, "
        " percentiles FROM fleet_results WHERE run_id = ? AND step_idx = ? ORDER BY direction");
    sqlite3_bind_int64 (fs, 1, run);
    sqlite3_bind_int (fs, 2, idx);
    int rc;
    while ((rc = store_row (store, fs, "read the fleet's results")) == 1) {
        json_t *d = json_pack ("{s:i, s:I, s:I, s:I, s:f, s:f}",
            "agents", sqlite3_column_int (fs, 1),
            "ops", (json_int_t) sqlite3_column_int64 (fs, 2),
            "bytes", (json_int_t) sqlite3_column_int64 (fs, 3),
            "errors", (json_int_t) sqlite3_column_int64 (fs, 4),
            "iops", sqlite3_column_double (fs, 5),
            "bw", sqlite3_column_double (fs, 6));
        add_latency (d, fs, 7, 8, 9, extra, nextra);
        add_imported (d, fs, 10, -1);
        json_object_set_new (fleet, (const char *) sqlite3_column_text (fs, 0), d);
    }
    sqlite3_reset (fs);
    if (rc < 0) {
        json_decref (fleet);
        return NULL;
    }
    dirs_in_order (fleet);
    return fleet;
}

/* The fleet's figures of a step made of the selected targets only (sel:
   report_selection_keys): their result rows summed and their histograms merged,
   as report_finalize_step makes fleet_results of all of them.  NULL on a
   database error (logged). */
static json_t *
fleet_json_selected (store_t *store, int64_t run, int idx, json_t *sel, const double *extra,
                     int nextra)
{
    static _Thread_local histogram_t h[DIR_COUNT][LK_N];
    uint64_t ops[DIR_COUNT] = { 0 }, bytes[DIR_COUNT] = { 0 }, errors[DIR_COUNT] = { 0 };
    double iops[DIR_COUNT] = { 0 }, bw[DIR_COUNT] = { 0 };
    int nohist[DIR_COUNT] = { 0 };
    json_t *pct[DIR_COUNT] = { NULL };
    json_t *agents = json_object ();
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < LK_N; k++)
            histogram_reset (&h[d][k]);
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, r.target, r.direction, r.ops, r.bytes, r.errors, r.iops, r.bw, r.hist, "
        " r.slat_hist, r.lat_hist, r.percentiles "
        "FROM results r JOIN agents a ON a.id = r.agent_id WHERE r.run_id = ? AND r.step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, idx);
    int rc;
    while ((rc = store_row (store, st, "read the selected targets' results")) == 1) {
        const char *an = (const char *) sqlite3_column_text (st, 0);
        char key[MSG_NAME_MAX + MSG_TEXT_MAX + 32];
        snprintf (key, sizeof key, "%s\x1f%s", an, (const char *) sqlite3_column_text (st, 1));
        int d = dir_from_name ((const char *) sqlite3_column_text (st, 2));
        if (d < 0 || !json_object_get (sel, key))
            continue;
        json_object_set_new (agents, an, json_true ());
        ops[d] += (uint64_t) sqlite3_column_int64 (st, 3);
        bytes[d] += (uint64_t) sqlite3_column_int64 (st, 4);
        errors[d] += (uint64_t) sqlite3_column_int64 (st, 5);
        iops[d] += sqlite3_column_double (st, 6);
        bw[d] += sqlite3_column_double (st, 7);
        uint64_t count = 0;
        for (int k = 0; k < LK_N; k++) {
            const void *blob = sqlite3_column_blob (st, 8 + k);
            int len = sqlite3_column_bytes (st, 8 + k);
            uint64_t n = 0;
            if (blob && len > 0 && histogram_check (blob, (size_t) len, &n) == 0)
                histogram_decode_add (&h[d][k], blob, (size_t) len);
            if (k == LK_CLAT)
                count = n;
        }
        /* An import without fio's bins: its percentiles stand alone. */
        if (sqlite3_column_type (st, 11) != SQLITE_NULL && sqlite3_column_int64 (st, 3) > 0
            && count == 0) {
            nohist[d]++;
            json_decref (pct[d]);
            pct[d] = json_loads ((const char *) sqlite3_column_text (st, 11), JSON_DECODE_ANY, NULL);
        }
    }
    sqlite3_reset (st);
    if (rc < 0) {
        for (int d = 0; d < DIR_COUNT; d++)
            json_decref (pct[d]);
        json_decref (agents);
        return NULL;
    }
    json_t *fleet = json_object ();
    int nagents = (int) json_object_size (agents);
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!dir_reported (d, ops[d], errors[d])) {
            json_decref (pct[d]);
            continue;
        }
        json_t *o = json_pack ("{s:i, s:I, s:I, s:I, s:f, s:f}", "agents", nagents,
            "ops", (json_int_t) ops[d], "bytes", (json_int_t) bytes[d],
            "errors", (json_int_t) errors[d], "iops", iops[d], "bw", bw[d]);
        latency_json (o, h[d], extra, nextra);
        if (nohist[d]) {
            bool one = nohist[d] == 1 && h[d][LK_CLAT].count == 0 && pct[d];
            json_object_set_new (o, "percentiles", one ? json_incref (pct[d]) : json_null ());
            json_object_set_new (o, "percentiles_only", json_true ());
            json_object_set_new (o, "latency", json_null ());
            json_object_set_new (o, "lat_ns", json_null ());
        }
        json_object_set_new (fleet, dir_name (d), o);
        json_decref (pct[d]);
    }
    json_decref (agents);
    return fleet;
}

/* The members of a step's fleet: the agents with a measured target, the
   targets, and the figures per member.  Can't fail. */
static json_t *
fleet_members (json_t *s)
{
    int agents = 0, targets = 0;
    size_t i;
    json_t *a;
    json_array_foreach (json_object_get (s, "agents"), i, a) {
        size_t n = json_array_size (json_object_get (a, "targets"));
        agents += n > 0;
        targets += (int) n;
    }
    json_t *f = json_object_get (s, "fleet");
    return groups_members_json (agents, targets, step_sla_total (f, "iops"), step_sla_total (f, "bw"));
}

/* Parses the report's where list into conds.  Returns 0, or -1 with err. */
int
report_where_parse (json_t *where, const char *flag, match_cond_t *conds, int *n, char *err,
             size_t errlen)
{
    *n = 0;
    if (where && !json_is_array (where)) {
        snprintf (err, errlen, "'where' must be a list of \"KEY=GLOB\"");
        return -1;
    }
    size_t i;
    json_t *c;
    json_array_foreach (where, i, c) {
        if (!json_is_string (c)) {
            snprintf (err, errlen, "'where' must be a list of \"KEY=GLOB\"");
            return -1;
        }
        if (match_conds_parse (flag, json_string_value (c), conds, MATCH_CONDS_MAX, n, err,
                               errlen))
            return -1;
    }
    return 0;
}

/* err: where matched nothing of run (values: the first key's values the
   run has).  Can't fail. */
void
report_where_nothing (json_t *where, const char *flag, int64_t run, const match_cond_t *c0,
               json_t *values, char *err, size_t errlen)
{
    char cond[512] = "", seen[512] = "";
    size_t off = 0, i;
    json_t *w;
    json_array_foreach (where, i, w)
        off += (size_t) snprintf (cond + off, off < sizeof cond ? sizeof cond - off : 0, "%s%s",
                                  i ? " " : "", json_string_value (w));
    off = 0;
    const char *k;
    json_t *v;
    int n = 0;
    json_object_foreach (values, k, v)
        if (off < sizeof seen && n++ < 12)
            off += (size_t) snprintf (seen + off, sizeof seen - off, "%s%s", off ? ", " : "", k);
    snprintf (err, errlen, "%s '%s' matches no target or agent of run %lld (%s there: %s); "
              "see iofleet report %lld --by %s", flag, cond, (long long) run, c0->key.text,
              seen[0] ? seen : "no value", (long long) run, c0->key.text);
}

json_t *
report_json (store_t *store, int64_t run, const char *by, json_t *where, const char *where_flag,
             char *err, size_t errlen)
{
    match_cond_t conds[MATCH_CONDS_MAX];
    int nconds = 0;
    if (!where_flag)
        where_flag = "--where";
    if (report_where_parse (where, where_flag, conds, &nconds, err, errlen))
        return NULL;
    if (by && groups_key_check (by, err, errlen))
        return NULL;
    sqlite3_stmt *st = store_stmt (store,
        "SELECT p.name, p.version, r.status, r.message, r.created_at, r.started_at, r.finished_at, "
        " r.origin, r.labels, r.intervals_dropped_at, r.cancelled_by, r.cancelled_at "
        "FROM runs r JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (run_row (store, st, run, err, errlen) != 1)
        return NULL;
    /* "verdict" first (its value is set at the end): a reader of the text
       sees it without parsing the rest (iofleet report --format json). */
    json_t *rep = json_pack ("{s:s, s:I, s:s, s:i, s:s, s:s, s:I}", "verdict", "none",
        "run", (json_int_t) run,
        "plan", (const char *) sqlite3_column_text (st, 0),
        "plan_version", sqlite3_column_int (st, 1),
        "status", (const char *) sqlite3_column_text (st, 2),
        "message", (const char *) sqlite3_column_text (st, 3),
        "created_at", (json_int_t) sqlite3_column_int64 (st, 4));
    if (sqlite3_column_type (st, 5) != SQLITE_NULL)
        json_object_set_new (rep, "started_at", json_integer (sqlite3_column_int64 (st, 5)));
    if (sqlite3_column_type (st, 6) != SQLITE_NULL)
        json_object_set_new (rep, "finished_at", json_integer (sqlite3_column_int64 (st, 6)));
    json_object_set_new (rep, "origin", json_string ((const char *) sqlite3_column_text (st, 7)));
    json_t *labels = json_loads ((const char *) sqlite3_column_text (st, 8), 0, NULL);
    json_object_set_new (rep, "labels", labels ? labels : json_object ());
    /* gc dropped the per-interval snapshots: results stay, series do not. */
    if (sqlite3_column_type (st, 9) != SQLITE_NULL)
        json_object_set_new (rep, "intervals_dropped_at",
                             json_integer (sqlite3_column_int64 (st, 9)));
    /* iofleet cancel: who and when (015_cancel.sql). */
    if (sqlite3_column_type (st, 10) != SQLITE_NULL) {
        json_object_set_new (rep, "cancelled_by",
                             json_string ((const char *) sqlite3_column_text (st, 10)));
        json_object_set_new (rep, "cancelled_at", json_integer (sqlite3_column_int64 (st, 11)));
    }
    sqlite3_reset (st);

    json_t *steps = json_array ();
    st = store_stmt (store, "SELECT idx, name, spec, status, start_at, skew_ns FROM steps "
                            "WHERE run_id = ? ORDER BY idx");
    sqlite3_bind_int64 (st, 1, run);
    /* Collect the rows first: the nested queries reuse cached statements. */
    json_t *rows = json_array ();
    int rc;
    while ((rc = store_row (store, st, "read the run's steps")) == 1) {
        json_t *s = json_pack ("{s:i, s:s, s:s}", "index", sqlite3_column_int (st, 0),
                               "name", (const char *) sqlite3_column_text (st, 1),
                               "status", (const char *) sqlite3_column_text (st, 3));
        json_t *spec = json_loads ((const char *) sqlite3_column_text (st, 2), 0, NULL);
        json_object_set_new (s, "job", spec ? spec : json_object ());
        if (sqlite3_column_type (st, 4) != SQLITE_NULL)
            json_object_set_new (s, "start_at", json_integer (sqlite3_column_int64 (st, 4)));
        if (sqlite3_column_type (st, 5) != SQLITE_NULL)
            json_object_set_new (s, "skew_ns", json_integer (sqlite3_column_int64 (st, 5)));
        json_array_append_new (rows, s);
    }
    sqlite3_reset (st);
    size_t i;
    json_t *s;
    bool any_sla = false;
    int sla_failed = 0, kept = 0;
    json_t *values = json_object ();        /* of conds[0]'s key, for an error */
    if (rc < 0)
        goto db_error;
    json_array_foreach (rows, i, s) {
        int idx = (int) json_integer_value (json_object_get (s, "index"));
        double extra[JOB_PCT_MAX];
        int nextra = step_percentiles (json_object_get (s, "job"), extra, JOB_PCT_MAX);
        json_t *agents = report_step_agents (store, run, idx, json_object_get (s, "job"), extra,
                                             nextra);
        if (!agents)
            goto db_error;
        json_object_set_new (s, "agents", agents);
        /* --where: every figure below is of the selected targets only. */
        json_t *sel = NULL;
        if (nconds) {
            int n = groups_select (store, run, idx, s, conds, nconds, values);
            if (n < 0 || !(sel = report_selection_keys (store, run, idx, s)))
                goto db_error;
            kept += n;
        }
        /* The tuning lint of every drive of the step, once per agent. */
        json_t *lint = json_array ();
        size_t ai, ti, li;
        json_t *aj, *tj, *lj;
        json_array_foreach (json_object_get (s, "agents"), ai, aj)
            json_array_foreach (json_object_get (aj, "targets"), ti, tj)
                json_array_foreach (json_object_get (json_object_get (tj, "drive"), "lint"), li, lj) {
                    char line[600];
                    snprintf (line, sizeof line, "%s: %s",
                              json_string_value (json_object_get (aj, "agent")),
                              json_string_value (lj));
                    bool dup = false;
                    size_t k;
                    json_t *e;
                    json_array_foreach (lint, k, e)
                        dup |= strcmp (json_string_value (e), line) == 0;
                    if (!dup)
                        json_array_append_new (lint, json_string (line));
                }
        json_object_set_new (s, "lint", lint);
        json_t *skew = json_object_get (s, "skew_ns");
        if (skew)
            json_object_set (s, "start_skew_ns", skew);
        json_t *fleet = NULL;
        if (add_intervals (store, run, idx, s, sel) == 0)
            fleet = sel ? fleet_json_selected (store, run, idx, sel, extra, nextra)
                        : report_fleet (store, run, idx, extra, nextra);
        json_decref (sel);
        if (!fleet)
            goto db_error;
        json_object_set_new (s, "fleet", fleet);
        json_object_set_new (s, "members", fleet_members (s));
        if (add_missing (store, run, idx, s))
            goto db_error;
        if (json_object_get (json_object_get (s, "job"), "sla")) {
            any_sla = true;
            sla_failed += step_sla_add (s);
        }
        if (groups_add (store, run, idx, s, by, nconds > 0, err, errlen)) {
            json_decref (values);
            json_decref (rows);
            json_decref (steps);
            json_decref (rep);
            return NULL;
        }
        json_array_append (steps, s);
    }
    json_decref (rows);
    if (nconds && !kept) {
        report_where_nothing (where, where_flag, run, &conds[0], values, err, errlen);
        json_decref (values);
        json_decref (steps);
        json_decref (rep);
        return NULL;
    }
    json_decref (values);
    if (nconds)
        json_object_set (rep, "where", where);
    json_object_set_new (rep, "steps", steps);
    json_object_set_new (rep, "sweeps", sweeps_json (steps));
    /* The run's SLA verdict: fail when any step failed any condition. */
    json_object_set_new (rep, "verdict", json_string (!any_sla ? "none"
                                                       : sla_failed ? "fail" : "pass"));
    return rep;

db_error:
    json_decref (values);
    json_decref (rows);
    json_decref (steps);
    json_decref (rep);
    snprintf (err, errlen, "database error reading run %lld; see the controller's log",
              (long long) run);
    return NULL;
}

int
report_add_histograms (store_t *store, int64_t run, json_t *rep)
{
    static _Thread_local histogram_t h;
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get (rep, "steps"), i, s) {
        json_t *fleet = json_object_get (s, "fleet");
        sqlite3_stmt *st = store_stmt (store,
            "SELECT direction, hist FROM fleet_results WHERE run_id = ? AND step_idx = ?");
        if (!st)
            return -1;
        if (!fleet)
            continue;
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, (int) json_integer_value (json_object_get (s, "index")));
        int rc;
        while ((rc = store_row (store, st, "read the fleet's histograms")) == 1) {
            json_t *d = json_object_get (fleet, (const char *) sqlite3_column_text (st, 0));
            const void *blob = sqlite3_column_blob (st, 1);
            int len = sqlite3_column_bytes (st, 1);
            if (!d || !blob || len <= 0 || histogram_decode (&h, blob, (size_t) len) != 0
                || h.count == 0)
                continue;
            /* 8 bins an octave (the stored histogram has 128): enough to
               draw, small enough to ship. */
            json_t *bins = json_array ();
            for (uint32_t b = 0; b < HIST_NBUCKETS; b += HIST_SUB / 8) {
                uint64_t n = 0;
                for (uint32_t k = b; k < b + HIST_SUB / 8 && k < HIST_NBUCKETS; k++)
                    n += h.buckets[k];
                if (!n)
                    continue;
                uint32_t last = b + HIST_SUB / 8 - 1;
                json_array_append_new (bins, json_pack ("[I, I, I]",
                    (json_int_t) histogram_bucket_low (b),
                    (json_int_t) (histogram_bucket_low (last) + histogram_bucket_width (last)),
                    (json_int_t) n));
            }
            json_object_set_new (d, "histogram", bins);
        }
        sqlite3_reset (st);
        if (rc < 0)
            return -1;
    }
    return 0;
}
