/*  report.c: step results from stored snapshots, and the run report.

    Every figure comes from the database: results are merges of the stored
    interval histograms, fleet figures are merges of those, never averages
    of percentiles.
*/
#include "controller.h"
#include "fio_json.h"
#include "histogram.h"
#include "sla.h"
#include "log.h"
#include "util.h"

#include <fnmatch.h>
#include <math.h>
#include <string.h>
#include <time.h>

static const double s_pcts[] = { 50, 90, 95, 99, 99.9, 99.99 };
static const char *s_pct_keys[] = { "p50", "p90", "p95", "p99", "p99.9", "p99.99" };

typedef struct {
    uint64_t agent_id;
    int target;
    uint64_t window_ns;
    int snapshots;
    uint64_t ops[DIR_COUNT], bytes[DIR_COUNT], errors[DIR_COUNT];
    histogram_t hist[DIR_COUNT][LK_N];
} acc_t;

static int
add_blob (histogram_t *into, const void *blob, int len)
{
    if (!blob || len <= 0)
        return 0;
    return histogram_decode_add (into, blob, (size_t) len) ? -1 : 0;
}

static json_t *
targets_of (store_t *store, int64_t run, int step, uint64_t agent)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT targets FROM step_agents "
                                          "WHERE run_id = ? AND step_idx = ? AND agent_id = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    sqlite3_bind_int64 (st, 3, (sqlite3_int64) agent);
    json_t *list = NULL;
    if (sqlite3_step (st) == SQLITE_ROW)
        list = json_loads ((const char *) sqlite3_column_text (st, 0), 0, NULL);
    sqlite3_reset (st);
    return list ? list : json_array ();
}

static int
bind_hist (sqlite3_stmt *st, int col, const histogram_t *h)
{
    static uint8_t buf[HIST_WIRE_MAX];
    int n = histogram_encode (h, buf, sizeof buf);
    return sqlite3_bind_blob (st, col, buf, n > 0 ? n : 0, SQLITE_TRANSIENT);
}

/* The rows of one (agent, target): one per direction reported
   (dir_reported).  Returns 0, or -1 on a database error. */
static int
save_result (store_t *store, int64_t run, int step, const acc_t *a, const char *target)
{
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!dir_reported (d, a->ops[d], a->errors[d]))
            continue;
        const histogram_t *h = &a->hist[d][LK_CLAT];
        double secs = (double) a->window_ns / 1e9;
        sqlite3_stmt *st = store_stmt (store,
            "INSERT OR REPLACE INTO results (run_id, step_idx, agent_id, target, direction, ops, "
            " bytes, errors, window_ns, iops, bw, lat_min, lat_max, lat_mean, lat_stddev, "
            " snapshots, hist, slat_hist, lat_hist) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, step);
        sqlite3_bind_int64 (st, 3, (sqlite3_int64) a->agent_id);
        sqlite3_bind_text (st, 4, target, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text (st, 5, dir_name (d), -1, SQLITE_STATIC);
        sqlite3_bind_int64 (st, 6, (sqlite3_int64) a->ops[d]);
        sqlite3_bind_int64 (st, 7, (sqlite3_int64) a->bytes[d]);
        sqlite3_bind_int64 (st, 8, (sqlite3_int64) a->errors[d]);
        sqlite3_bind_int64 (st, 9, (sqlite3_int64) a->window_ns);
        sqlite3_bind_double (st, 10, secs > 0 ? (double) a->ops[d] / secs : 0);
        sqlite3_bind_double (st, 11, secs > 0 ? (double) a->bytes[d] / secs : 0);
        sqlite3_bind_int64 (st, 12, (sqlite3_int64) (h->count ? h->min : 0));
        sqlite3_bind_int64 (st, 13, (sqlite3_int64) h->max);
        sqlite3_bind_double (st, 14, histogram_mean (h));
        sqlite3_bind_double (st, 15, histogram_stddev (h));
        sqlite3_bind_int (st, 16, a->snapshots);
        bind_hist (st, 17, h);
        bind_hist (st, 18, &a->hist[d][LK_SLAT]);
        bind_hist (st, 19, &a->hist[d][LK_LAT]);
        if (store_step_done (store, st, "store result"))
            return -1;
    }
    return 0;
}

/* Empties a (all zero bytes, or used before): its figures zeroed, its
   histograms cleared at the cost of what they hold.  Can't fail. */
static void
acc_reset (acc_t *a)
{
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < LK_N; k++)
            histogram_clear (&a->hist[d][k]);
    a->agent_id = 0;
    a->target = 0;
    a->snapshots = 0;
    a->window_ns = 0;
    memset (a->ops, 0, sizeof a->ops);
    memset (a->bytes, 0, sizeof a->bytes);
    memset (a->errors, 0, sizeof a->errors);
}

int
report_finalize_step (store_t *store, int64_t run, int step, uint64_t interval_ns,
                      report_agent_fn *totals, void *arg)
{
    (void) interval_ns;
    store_begin (store);
    uint64_t agent_ops = 0, agent_bytes = 0;  /* of last_agent, for totals */
    static acc_t acc;
    static histogram_t fleet[DIR_COUNT][LK_N];
    uint64_t fops[DIR_COUNT] = { 0 }, fbytes[DIR_COUNT] = { 0 }, ferr[DIR_COUNT] = { 0 };
    double fiops[DIR_COUNT] = { 0 }, fbw[DIR_COUNT] = { 0 };
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < LK_N; k++)
            histogram_reset (&fleet[d][k]);
    int nagents = 0, bad = 0;
    uint64_t last_agent = 0;
    bool have = false;
    json_t *targets = NULL;

    /* Six columns a direction from 4, in direction order: ops, bytes,
       errors, then the histograms in LK order: clat, slat, lat. */
    sqlite3_stmt *st = store_stmt (store,
        "SELECT agent_id, target, t_start, t_end, read_ops, read_bytes, read_errors, "
        " read_hist, read_slat_hist, read_lat_hist, write_ops, write_bytes, write_errors, "
        " write_hist, write_slat_hist, write_lat_hist, trim_ops, trim_bytes, trim_errors, "
        " trim_hist, trim_slat_hist, trim_lat_hist FROM snapshots "
        "WHERE run_id = ? AND step_idx = ? ORDER BY agent_id, target, seq");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    for (;;) {
        int rc = sqlite3_step (st);
        uint64_t agent = rc == SQLITE_ROW ? (uint64_t) sqlite3_column_int64 (st, 0) : 0;
        int target = rc == SQLITE_ROW ? sqlite3_column_int (st, 1) : -1;
        if (have && (rc != SQLITE_ROW || agent != acc.agent_id || target != acc.target)) {
            /* Flush the finished (agent, target). */
            if (acc.agent_id != last_agent) {
                if (nagents && totals)
                    totals (arg, last_agent, agent_ops, agent_bytes);
                agent_ops = agent_bytes = 0;
                json_decref (targets);
                targets = targets_of (store, run, step, acc.agent_id);
                nagents++;
                last_agent = acc.agent_id;
            }
            for (int d = 0; d < DIR_COUNT; d++) {
                agent_ops += acc.ops[d];
                agent_bytes += acc.bytes[d];
            }
            json_t *name = json_array_get (targets, (size_t) acc.target);
            char fallback[32];
            snprintf (fallback, sizeof fallback, "#%d", acc.target);
            save_result (store, run, step, &acc, name ? json_string_value (name) : fallback);
            double secs = (double) acc.window_ns / 1e9;
            for (int d = 0; d < DIR_COUNT; d++) {
                for (int k = 0; k < LK_N; k++)
                    histogram_merge (&fleet[d][k], &acc.hist[d][k]);
                fops[d] += acc.ops[d];
                fbytes[d] += acc.bytes[d];
                ferr[d] += acc.errors[d];
                fiops[d] += secs > 0 ? (double) acc.ops[d] / secs : 0;
                fbw[d] += secs > 0 ? (double) acc.bytes[d] / secs : 0;
            }
            have = false;
        }
        if (rc != SQLITE_ROW)
            break;
        if (!have) {
            acc_reset (&acc);
            acc.agent_id = agent;
            acc.target = target;
            have = true;
        }
        acc.snapshots++;
        acc.window_ns += (uint64_t) (sqlite3_column_int64 (st, 3) - sqlite3_column_int64 (st, 2));
        for (int d = 0; d < DIR_COUNT; d++) {
            int c = 4 + d * 6;
            acc.ops[d] += (uint64_t) sqlite3_column_int64 (st, c);
            acc.bytes[d] += (uint64_t) sqlite3_column_int64 (st, c + 1);
            acc.errors[d] += (uint64_t) sqlite3_column_int64 (st, c + 2);
            for (int k = 0; k < LK_N; k++)
                if (add_blob (&acc.hist[d][k], sqlite3_column_blob (st, c + 3 + k),
                              sqlite3_column_bytes (st, c + 3 + k)))
                    bad++;
        }
    }
    sqlite3_reset (st);
    if (nagents && totals)
        totals (arg, last_agent, agent_ops, agent_bytes);
    json_decref (targets);
    if (bad)
        log_err ("run %lld step %d: %d stored histogram(s) did not decode", (long long) run,
                 step, bad);

    for (int d = 0; d < DIR_COUNT; d++) {
        if (!dir_reported (d, fops[d], ferr[d]))
            continue;
        st = store_stmt (store,
            "INSERT OR REPLACE INTO fleet_results (run_id, step_idx, direction, agents, ops, bytes, "
            " errors, iops, bw, hist, slat_hist, lat_hist) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, step);
        sqlite3_bind_text (st, 3, dir_name (d), -1, SQLITE_STATIC);
        sqlite3_bind_int (st, 4, nagents);
        sqlite3_bind_int64 (st, 5, (sqlite3_int64) fops[d]);
        sqlite3_bind_int64 (st, 6, (sqlite3_int64) fbytes[d]);
        sqlite3_bind_int64 (st, 7, (sqlite3_int64) ferr[d]);
        sqlite3_bind_double (st, 8, fiops[d]);
        sqlite3_bind_double (st, 9, fbw[d]);
        bind_hist (st, 10, &fleet[d][LK_CLAT]);
        bind_hist (st, 11, &fleet[d][LK_SLAT]);
        bind_hist (st, 12, &fleet[d][LK_LAT]);
        store_step_done (store, st, "store fleet result");
    }
    return bad ? -1 : 0;
}

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
    static histogram_t h[LK_N];
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

/* The fleet series being built: its intervals, and the common window. */
typedef struct {
    json_t *intervals;
    int nagents_total;                  /* agents that delivered anything */
    int first_full, last_full;
    int64_t win_start, win_end;
} series_json_t;

/* Appends interval seq (nagents agents, their spans summing to span_sum)
   to v: each direction reported (dir_reported: trims where the interval
   had some), and "iops" and "bw" over all directions.  Can't fail. */
static void
emit_interval (series_json_t *v, int seq, uint64_t t0, uint64_t t1, int nagents,
               uint64_t span_sum, const uint64_t ops[DIR_COUNT],
               const uint64_t bytes[DIR_COUNT], const histogram_t h[DIR_COUNT])
{
    double secs = nagents ? (double) span_sum / nagents / 1e9 : 0;
    json_t *iv = json_pack ("{s:i, s:I, s:I, s:i}", "seq", seq, "start_ns", (json_int_t) t0,
                            "end_ns", (json_int_t) t1, "agents", nagents);
    double iops = 0, bw = 0;
    for (int d = 0; d < DIR_COUNT; d++) {
        iops += secs > 0 ? (double) ops[d] / secs : 0;
        bw += secs > 0 ? (double) bytes[d] / secs : 0;
        if (!dir_reported (d, ops[d], 0))
            continue;
        json_object_set_new (iv, dir_name (d), json_pack (
            "{s:I, s:I, s:f, s:I, s:I, s:I}", "ops", (json_int_t) ops[d],
            "bytes", (json_int_t) bytes[d], "iops", secs > 0 ? (double) ops[d] / secs : 0,
            "histogram_count", (json_int_t) h[d].count,
            "p50", (json_int_t) histogram_percentile (&h[d], 50),
            "p99", (json_int_t) histogram_percentile (&h[d], 99)));
    }
    json_object_set_new (iv, "iops", json_real (iops));
    json_object_set_new (iv, "bw", json_real (bw));
    json_array_append_new (v->intervals, iv);
    if (nagents == v->nagents_total) {
        if (v->first_full < 0) {
            v->first_full = seq;
            v->win_start = (int64_t) t0;
        }
        v->last_full = seq;
        v->win_end = (int64_t) t1;
    }
}

/* The series from the step's fleet_intervals rows (series.c keeps them).
   Returns the number of rows (0: none, compute it from the snapshots). */
static int
intervals_from_rows (store_t *store, int64_t run, int step, series_json_t *v)
{
    static histogram_t h[DIR_COUNT];
    sqlite3_stmt *st = store_stmt (store,
        "SELECT seq, agents, t_start, t_end, span_ns, read_ops, read_bytes, read_hist, "
        " write_ops, write_bytes, write_hist, trim_ops, trim_bytes, trim_hist "
        "FROM fleet_intervals WHERE run_id = ? AND step_idx = ? ORDER BY seq");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int n = 0;
    while (sqlite3_step (st) == SQLITE_ROW) {
        uint64_t ops[DIR_COUNT], bytes[DIR_COUNT];
        for (int d = 0; d < DIR_COUNT; d++) {
            int c = 5 + d * 3;
            ops[d] = (uint64_t) sqlite3_column_int64 (st, c);
            bytes[d] = (uint64_t) sqlite3_column_int64 (st, c + 1);
            histogram_clear (&h[d]);
            add_blob (&h[d], sqlite3_column_blob (st, c + 2), sqlite3_column_bytes (st, c + 2));
        }
        emit_interval (v, sqlite3_column_int (st, 0), (uint64_t) sqlite3_column_int64 (st, 2),
                       (uint64_t) sqlite3_column_int64 (st, 3), sqlite3_column_int (st, 1),
                       (uint64_t) sqlite3_column_int64 (st, 4), ops, bytes, h);
        n++;
    }
    sqlite3_reset (st);
    return n;
}

/* The same from every snapshot of the step (runs stored before
   011_fleet_intervals), or from those of the selected targets only (sel:
   "AGENT\x1f#INDEX" keys, selection_keys; NULL: all). */
static void
intervals_from_snapshots (store_t *store, int64_t run, int step, json_t *sel, series_json_t *v)
{
    static histogram_t h[DIR_COUNT];
    sqlite3_stmt *st = store_stmt (store,
        "SELECT s.seq, s.agent_id, s.t_start, s.t_end, s.read_ops, s.read_bytes, s.read_hist, "
        " s.write_ops, s.write_bytes, s.write_hist, s.trim_ops, s.trim_bytes, s.trim_hist, "
        " a.name, s.target "
        "FROM snapshots s JOIN agents a ON a.id = s.agent_id WHERE s.run_id = ? AND s.step_idx = ? "
        "ORDER BY s.seq, s.agent_id, s.target");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    int cur = -1, nagents = 0;
    int64_t last_agent = -1;
    uint64_t t0 = 0, t1 = 0, span_sum = 0, ops[DIR_COUNT] = { 0 }, bytes[DIR_COUNT] = { 0 };
    for (;;) {
        int rc = sqlite3_step (st);
        if (rc == SQLITE_ROW && sel) {
            char key[MSG_NAME_MAX + 40];
            snprintf (key, sizeof key, "%s\x1f#%d", (const char *) sqlite3_column_text (st, 13),
                      sqlite3_column_int (st, 14));
            if (!json_object_get (sel, key))
                continue;
        }
        int seq = rc == SQLITE_ROW ? sqlite3_column_int (st, 0) : -1;
        if (cur >= 0 && seq != cur)
            emit_interval (v, cur, t0, t1, nagents, span_sum, ops, bytes, h);
        if (rc != SQLITE_ROW)
            break;
        int64_t agent = sqlite3_column_int64 (st, 1);
        uint64_t a0 = (uint64_t) sqlite3_column_int64 (st, 2);
        uint64_t a1 = (uint64_t) sqlite3_column_int64 (st, 3);
        if (seq != cur) {
            cur = seq;
            nagents = 0;
            last_agent = -1;
            t0 = a0;
            t1 = a1;
            span_sum = 0;
            for (int d = 0; d < DIR_COUNT; d++) {
                ops[d] = bytes[d] = 0;
                histogram_clear (&h[d]);
            }
        }
        if (agent != last_agent) {
            nagents++;
            span_sum += a1 - a0;
            last_agent = agent;
        }
        t0 = a0 < t0 ? a0 : t0;
        t1 = a1 > t1 ? a1 : t1;
        for (int d = 0; d < DIR_COUNT; d++) {
            int c = 4 + d * 3;
            ops[d] += (uint64_t) sqlite3_column_int64 (st, c);
            bytes[d] += (uint64_t) sqlite3_column_int64 (st, c + 1);
            add_blob (&h[d], sqlite3_column_blob (st, c + 2), sqlite3_column_bytes (st, c + 2));
        }
    }
    sqlite3_reset (st);
}

/* The keys of the targets a (filtered) step keeps: "AGENT\x1fNAME" as
   results name them and "AGENT\x1f#INDEX" as snapshots do, through the
   agents' target lists.  Can't fail (empty when out of memory). */
static json_t *
selection_keys (store_t *store, int64_t run, int step, json_t *s)
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
    while (sqlite3_step (st) == SQLITE_ROW) {
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
    return sel;
}

/* The number of agents of a step that delivered a snapshot of a selected
   target (sel as for intervals_from_snapshots).  Can't fail. */
static int
agents_delivering (store_t *store, int64_t run, int step, json_t *sel)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT DISTINCT a.name, s.target FROM snapshots s JOIN agents a ON a.id = s.agent_id "
        "WHERE s.run_id = ? AND s.step_idx = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    json_t *agents = json_object ();
    while (sqlite3_step (st) == SQLITE_ROW) {
        char key[MSG_NAME_MAX + 40];
        const char *an = (const char *) sqlite3_column_text (st, 0);
        snprintf (key, sizeof key, "%s\x1f#%d", an, sqlite3_column_int (st, 1));
        if (json_object_get (sel, key))
            json_object_set_new (agents, an, json_true ());
    }
    sqlite3_reset (st);
    int n = (int) json_object_size (agents);
    json_decref (agents);
    return n;
}

/* The fleet time series of a step: interval k merged over every agent
   (ops and bytes summed, clat histograms merged), and the common window:
   the intervals every agent that measured took part in.  Adds "intervals",
   "window" and "outside_window" to step.  sel (selection_keys; NULL:
   all): only the selected targets count. */
static void
add_intervals (store_t *store, int64_t run, int step, json_t *step_json, json_t *sel)
{
    series_json_t v = { json_array (), 0, -1, -1, -1, -1 };
    if (sel) {
        v.nagents_total = agents_delivering (store, run, step, sel);
        intervals_from_snapshots (store, run, step, sel, &v);
    } else {
        /* The agents that delivered anything (one seek each). */
        sqlite3_stmt *st = store_stmt (store,
            "SELECT COUNT(*) FROM step_agents sa WHERE sa.run_id = ? AND sa.step_idx = ? "
            "AND EXISTS (SELECT 1 FROM snapshots s WHERE s.run_id = sa.run_id "
            " AND s.step_idx = sa.step_idx AND s.agent_id = sa.agent_id)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, step);
        if (sqlite3_step (st) == SQLITE_ROW)
            v.nagents_total = sqlite3_column_int (st, 0);
        sqlite3_reset (st);
        if (intervals_from_rows (store, run, step, &v) == 0)
            intervals_from_snapshots (store, run, step, NULL, &v);
    }
    int first_full = v.first_full, last_full = v.last_full;
    json_object_set_new (step_json, "intervals", v.intervals);
    if (first_full >= 0)
        json_object_set_new (step_json, "window", json_pack ("{s:I, s:I, s:i, s:i}",
            "start_ns", (json_int_t) v.win_start, "end_ns", (json_int_t) v.win_end,
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

/* key of every direction of dirs (a target's, group's or the fleet's
   {"read", "write"[, "trim"]}) summed: the total IOPS or bandwidth.
   Can't fail. */
static double
dirs_sum (json_t *dirs, const char *key)
{
    double sum = 0;
    for (int d = 0; d < DIR_COUNT; d++)
        sum += json_number_value (json_object_get (json_object_get (dirs, dir_name (d)), key));
    return sum;
}

/* The directions an SLA's latency conditions apply to: reads and writes.
   Trims are not offered (their latency is a device's discard time, not
   what an SLA on a workload means); they count in the iops and bw totals. */
#define SLA_LAT_DIRS 2
_Static_assert (DIR_READ < SLA_LAT_DIRS && DIR_WRITE < SLA_LAT_DIRS && DIR_TRIM >= SLA_LAT_DIRS,
                "SLA_LAT_DIRS counts the directions from the first: reads and writes");

/* The figure of condition c in a direction object dir of dirs. */
static double
sla_value (const sla_cond_t *c, json_t *dir, json_t *dirs)
{
    if (strcmp (c->metric, "iops") == 0 || strcmp (c->metric, "bw") == 0)
        return dirs_sum (dirs, c->metric);
    if (strcmp (c->metric, "mean") == 0 || strcmp (c->metric, "max") == 0)
        return json_number_value (json_object_get (json_object_get (dir, "lat_ns"), c->metric));
    char key[32];
    snprintf (key, sizeof key, "p%g", c->percentile);
    json_t *p = json_object_get (json_object_get (dir, "percentiles"), key);
    return p ? json_number_value (p) : NAN;
}

/* Checks the conditions on one target's (or group's, or the fleet's)
   figures dirs; adds failures to `fails` (with `who`) and every check to
   `checks` when given.  Returns the number failed. */
static int
sla_apply (const sla_t *sla, json_t *dirs, json_t *who, json_t *fails, json_t *checks)
{
    int nfail = 0;
    for (int k = 0; k < sla->n; k++) {
        const sla_cond_t *c = &sla->c[k];
        bool total = strcmp (c->metric, "iops") == 0 || strcmp (c->metric, "bw") == 0;
        for (int d = 0; d < (total ? 1 : SLA_LAT_DIRS); d++) {
            json_t *dir = json_object_get (dirs, dir_name (d));
            if (!total && json_number_value (json_object_get (dir, "ops")) == 0)
                continue;       /* a latency condition applies where there was I/O */
            double v = sla_value (c, dir, dirs);
            bool pass = !isnan (v) && sla_pass (c, v);
            json_t *e = json_pack ("{s:s, s:s, s:f, s:b}", "condition", c->text,
                                   "direction", total ? "total" : dir_name (d),
                                   "value", isnan (v) ? 0.0 : v, "pass", pass);
            if (checks)
                json_array_append (checks, e);
            if (!pass) {
                nfail++;
                if (who)
                    json_object_update (e, who);
                json_array_append (fails, e);
            }
            json_decref (e);
        }
    }
    return nfail;
}

/* The step's SLA verdict: on the fleet's merged figures and on every
   target.  Returns 1 when it failed, 0 when it passed or has none. */
static int
add_sla (json_t *s)
{
    const char *text = json_string_value (json_object_get (json_object_get (s, "job"), "sla"));
    sla_t sla;
    char err[256];
    if (!text || sla_parse (text, &sla, err, sizeof err) != 0)
        return 0;
    json_t *fails = json_array (), *fleet = json_array ();
    json_t *f = json_object_get (s, "fleet");
    int nfail = sla_apply (&sla, f, NULL, fails, fleet);
    size_t ai, ti;
    json_t *aj, *tj;
    json_array_foreach (json_object_get (s, "agents"), ai, aj)
        json_array_foreach (json_object_get (aj, "targets"), ti, tj) {
            json_t *who = json_pack ("{s:O, s:O}", "agent", json_object_get (aj, "agent"),
                                     "target", json_object_get (tj, "target"));
            nfail += sla_apply (&sla, tj, who, fails, NULL);
            json_decref (who);
        }
    json_object_set_new (s, "sla", json_pack ("{s:s, s:s, s:o, s:o}", "conditions", text,
        "verdict", nfail ? "fail" : "pass", "fleet", fleet, "failures", fails));
    return nfail ? 1 : 0;
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
   failed before DONE).  Returns a new array; NULL on allocation failure. */
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
        if (st) {
            sqlite3_bind_int64 (st, 1, run);
            sqlite3_bind_int (st, 2, step);
            sqlite3_bind_int64 (st, 3, agent);
            sqlite3_bind_int (st, 4, k);
            if (sqlite3_step (st) == SQLITE_ROW)
                json_object_set_new (e, "depth", json_integer (sqlite3_column_int64 (st, 0)));
            sqlite3_reset (st);
        }
        json_array_append_new (list, e);
    }
    return list;
}

/* The agents of a step.  spec (the step's "job"; NULL: not wanted) adds
   each agent's "latency_target" when a job of the step has one. */
static json_t *
step_agents_json (store_t *store, int64_t run, int step, json_t *spec, const double *extra,
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
    while (sqlite3_step (st) == SQLITE_ROW) {
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
        while (sqlite3_step (rs) == SQLITE_ROW) {
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
        if (latency)
            json_object_set_new (a, "latency_target",
                                 agent_latency_json (store, run, step, agent_id, spec));
        json_array_append_new (agents, a);
    }
    sqlite3_reset (st);
    return agents;
}

/* Queue-depth curves of the run's sweeps: for each swept section and each
   rw/bs of it (and each group, when the report is grouped), IOPS and p99
   (busier direction) against iodepth; the knee, the smallest depth after
   which doubling the depth gains less than SWEEP_KNEE_PCT of IOPS; and the
   SLA capacity, the highest IOPS among the depths whose latency conditions
   of the job's SLA all hold (iops and bw conditions are what capacity
   measures, so they are left out), with the depth that gives it and the
   p99 headroom against a p99 condition. */
#define SWEEP_KNEE_PCT 10.0

static json_t *
sweep_curve (json_t *out, const char *key, const char *of, json_t *job, const char *group)
{
    size_t k;
    json_t *c;
    json_array_foreach (out, k, c)
        if (strcmp (json_string_value (json_object_get (c, "curve")), key) == 0)
            return c;
    c = json_pack ("{s:s, s:s, s:O, s:O, s:[]}", "curve", key, "sweep", of,
                   "rw", json_object_get (job, "rw"), "bs", json_object_get (job, "bs"),
                   "points");
    if (group)
        json_object_set_new (c, "group", json_string (group));
    json_array_append_new (out, c);
    return c;
}

/* Adds the point of one step (the fleet's or one group's figures dirs):
   IOPS of all directions, p99 of the busier of reads and writes. */
static void
sweep_point (json_t *curve, json_t *s, json_t *dirs, const sla_t *sla)
{
    json_t *job = json_object_get (s, "job");
    json_t *r = json_object_get (dirs, "read"), *w = json_object_get (dirs, "write");
    json_t *busy = json_number_value (json_object_get (r, "ops"))
                   >= json_number_value (json_object_get (w, "ops")) ? r : w;
    json_t *pt = json_pack ("{s:O, s:O, s:f, s:O}",
        "step", json_object_get (s, "name"), "iodepth", json_object_get (job, "iodepth"),
        "iops", dirs_sum (dirs, "iops"),
        "p99", json_object_get (json_object_get (busy, "percentiles"), "p99"));
    if (sla) {
        sla_t lat = { 0 };
        for (int k = 0; k < sla->n; k++)
            if (strcmp (sla->c[k].metric, "iops") != 0 && strcmp (sla->c[k].metric, "bw") != 0)
                lat.c[lat.n++] = sla->c[k];
        if (lat.n) {
            json_t *fails = json_array ();
            json_object_set_new (pt, "sla_latency_pass",
                                 json_boolean (sla_apply (&lat, dirs, NULL, fails, NULL) == 0));
            json_decref (fails);
        }
    }
    json_array_append_new (json_object_get (curve, "points"), pt);
}

static void
sweep_analyse (json_t *c, const sla_t *sla)
{
    json_t *pts = json_object_get (c, "points");
    size_t n = json_array_size (pts);
    json_t *knee = json_null ();
    /* Points come in the sweep's order; the knee needs increasing depths. */
    for (size_t k = 0; k + 1 < n; k++) {
        json_t *a = json_array_get (pts, k), *b = json_array_get (pts, k + 1);
        double qa = json_number_value (json_object_get (a, "iodepth"));
        double qb = json_number_value (json_object_get (b, "iodepth"));
        double ia = json_number_value (json_object_get (a, "iops"));
        double ib = json_number_value (json_object_get (b, "iops"));
        if (qb <= qa || ia <= 0)
            break;
        /* The gain per doubling between these two depths. */
        double doublings = log2 (qb / qa);
        double gain = 100.0 * (pow (ib / ia, 1.0 / doublings) - 1.0);
        if (gain < SWEEP_KNEE_PCT) {
            knee = json_incref (json_object_get (a, "iodepth"));
            break;
        }
    }
    json_object_set_new (c, "knee_iodepth", knee);
    json_object_set_new (c, "knee_rule", json_sprintf ("the smallest iodepth after which "
                         "doubling it gains less than %.0f%% IOPS", SWEEP_KNEE_PCT));

    /* The SLA capacity: null without latency conditions, or when no depth
       meets them (then sla_capacity_rule says so). */
    json_t *best = NULL;
    bool judged = false;
    size_t k;
    json_t *p;
    json_array_foreach (pts, k, p) {
        json_t *ok = json_object_get (p, "sla_latency_pass");
        judged |= ok != NULL;
        if (json_is_true (ok) && (!best || json_number_value (json_object_get (p, "iops"))
                                           > json_number_value (json_object_get (best, "iops"))))
            best = p;
    }
    if (!judged) {
        json_object_set_new (c, "sla_capacity", json_null ());
        return;
    }
    if (!best) {
        json_object_set_new (c, "sla_capacity", json_pack ("{s:n, s:n, s:s}", "iops", "iodepth",
                             "note", "no depth of the sweep meets the latency conditions"));
        return;
    }
    json_t *cap = json_pack ("{s:O, s:O, s:O, s:O}", "iops", json_object_get (best, "iops"),
                             "iodepth", json_object_get (best, "iodepth"),
                             "step", json_object_get (best, "step"),
                             "p99", json_object_get (best, "p99"));
    for (int i = 0; i < sla->n; i++)
        if (sla->c[i].less && sla->c[i].percentile == 99) {
            double p99 = json_number_value (json_object_get (best, "p99"));
            json_object_set_new (cap, "p99_limit", json_real (sla->c[i].limit));
            json_object_set_new (cap, "p99_headroom_pct",
                                 json_real (100.0 * (sla->c[i].limit - p99) / sla->c[i].limit));
        }
    json_object_set_new (c, "sla_capacity", cap);
}

static json_t *
sweeps_json (json_t *steps)
{
    json_t *out = json_array ();
    size_t i;
    json_t *s;
    json_array_foreach (steps, i, s) {
        json_t *job = json_object_get (s, "job");
        const char *of = json_string_value (json_object_get (job, "sweep_of"));
        if (!of)
            continue;
        sla_t sla;
        char err[256];
        const char *text = json_string_value (json_object_get (job, "sla"));
        bool has_sla = text && sla_parse (text, &sla, err, sizeof err) == 0;
        char key[600];
        snprintf (key, sizeof key, "%s %s bs=%lld", of, json_string_value (json_object_get (job, "rw")),
                  (long long) json_integer_value (json_object_get (job, "bs")));
        json_t *f = json_object_get (s, "fleet");
        sweep_point (sweep_curve (out, key, of, job, NULL), s, f, has_sla ? &sla : NULL);
        size_t g;
        json_t *gj;
        json_array_foreach (json_object_get (s, "groups"), g, gj) {
            char gkey[900];
            const char *value = json_string_value (json_object_get (gj, "value"));
            if (strcmp (json_string_value (json_object_get (gj, "by")), "all") == 0)
                continue;       /* ungrouped: the fleet's curve already */
            snprintf (gkey, sizeof gkey, "%s %s=%s", key,
                      json_string_value (json_object_get (gj, "by")), value);
            sweep_point (sweep_curve (out, gkey, of, job, value), s, gj, has_sla ? &sla : NULL);
        }
    }
    json_array_foreach (out, i, s) {
        /* Every step of a curve carries the same section's SLA. */
        json_t *first = json_array_get (json_object_get (s, "points"), 0);
        const char *name = json_string_value (json_object_get (first, "step"));
        sla_t sla;
        char err[256];
        bool has_sla = false;
        size_t k;
        json_t *st;
        json_array_foreach (steps, k, st)
            if (strcmp (json_string_value (json_object_get (st, "name")), name) == 0) {
                const char *text = json_string_value (json_object_get (json_object_get (st, "job"),
                                                                       "sla"));
                has_sla = text && sla_parse (text, &sla, err, sizeof err) == 0;
            }
        sweep_analyse (s, has_sla ? &sla : NULL);
    }
    return out;
}

/* Which intervals each agent of a step is missing.  The step's intervals
   are 0..N-1, N one past the highest seq any agent delivered; an agent
   that delivered fewer, or was lost or failed, is "incomplete", with its
   "missing_intervals".  Its delivered intervals stay in every figure (the
   rule: what was measured counts, what was not is listed), and the
   step says which agents its figures hold incomplete data of
   ("incomplete_agents").  An agent that refused the step is neither: it
   is listed with its reason in "refused_agents". */
static void
add_missing (store_t *store, int64_t run, int step, json_t *s)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT a.name, s.seq FROM snapshots s JOIN agents a ON a.id = s.agent_id "
        "WHERE s.run_id = ? AND s.step_idx = ? GROUP BY s.agent_id, s.seq");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    json_t *seen = json_object ();             /* agent -> {seq: true} */
    int64_t n = 0;
    while (sqlite3_step (st) == SQLITE_ROW) {
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
}

/* The fleet's merged figures of a step: {"read": {...}, "write": {...}},
   and "trim" when the step trimmed. */
static json_t *
fleet_json (store_t *store, int64_t run, int idx, const double *extra, int nextra)
{
    json_t *fleet = json_object ();
    sqlite3_stmt *fs = store_stmt (store,
        "SELECT direction, agents, ops, bytes, errors, iops, bw, hist, slat_hist, lat_hist, "
        " percentiles FROM fleet_results WHERE run_id = ? AND step_idx = ? ORDER BY direction");
    sqlite3_bind_int64 (fs, 1, run);
    sqlite3_bind_int (fs, 2, idx);
    while (sqlite3_step (fs) == SQLITE_ROW) {
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
    dirs_in_order (fleet);
    return fleet;
}

/* The fleet's figures of a step made of the selected targets only (sel:
   selection_keys): their result rows summed and their histograms merged,
   as report_finalize_step makes fleet_results of all of them. */
static json_t *
fleet_json_selected (store_t *store, int64_t run, int idx, json_t *sel, const double *extra,
                     int nextra)
{
    static histogram_t h[DIR_COUNT][LK_N];
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
    while (sqlite3_step (st) == SQLITE_ROW) {
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
    return groups_members_json (agents, targets, dirs_sum (f, "iops"), dirs_sum (f, "bw"));
}

/* Parses the report's where list into conds.  Returns 0, or -1 with err. */
static int
where_parse (json_t *where, const char *flag, match_cond_t *conds, int *n, char *err,
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
static void
where_nothing (json_t *where, const char *flag, int64_t run, const match_cond_t *c0,
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
    if (where_parse (where, where_flag, conds, &nconds, err, errlen))
        return NULL;
    if (by && groups_key_check (by, err, errlen))
        return NULL;
    sqlite3_stmt *st = store_stmt (store,
        "SELECT p.name, p.version, r.status, r.message, r.created_at, r.started_at, r.finished_at, "
        " r.origin, r.labels, r.intervals_dropped_at, r.cancelled_by, r.cancelled_at "
        "FROM runs r JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (sqlite3_step (st) != SQLITE_ROW) {
        sqlite3_reset (st);
        snprintf (err, errlen, "no run %lld (see 'iofleet runs')", (long long) run);
        return NULL;
    }
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
    while (sqlite3_step (st) == SQLITE_ROW) {
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
    json_array_foreach (rows, i, s) {
        int idx = (int) json_integer_value (json_object_get (s, "index"));
        double extra[JOB_PCT_MAX];
        int nextra = step_percentiles (json_object_get (s, "job"), extra, JOB_PCT_MAX);
        json_object_set_new (s, "agents", step_agents_json (store, run, idx,
                                                             json_object_get (s, "job"), extra,
                                                             nextra));
        /* --where: every figure below is of the selected targets only. */
        json_t *sel = NULL;
        if (nconds) {
            kept += groups_select (store, run, idx, s, conds, nconds, values);
            sel = selection_keys (store, run, idx, s);
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
        add_intervals (store, run, idx, s, sel);
        json_t *fleet = sel ? fleet_json_selected (store, run, idx, sel, extra, nextra)
                            : fleet_json (store, run, idx, extra, nextra);
        json_object_set_new (s, "fleet", fleet);
        json_object_set_new (s, "members", fleet_members (s));
        json_decref (sel);
        add_missing (store, run, idx, s);
        if (json_object_get (json_object_get (s, "job"), "sla")) {
            any_sla = true;
            sla_failed += add_sla (s);
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
        where_nothing (where, where_flag, run, &conds[0], values, err, errlen);
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
}

/* One fio job entry per step and agent, as fio's client mode reports each
   server's jobs: histograms and per-interval samples from the stored
   snapshots, merged over the agent's targets and workers. */
typedef struct {
    char agent[MSG_NAME_MAX + 1];
    histogram_t hist[DIR_COUNT][LK_N];
    uint64_t ops[DIR_COUNT], bytes[DIR_COUNT], errors[DIR_COUNT];
    uint64_t window_ns;
    double *samples[DIR_COUNT][2];  /* [dir][iops, bw] */
    int nsamples;
} fio_acc_t;

static void
fio_acc_free (fio_acc_t *a)
{
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < 2; k++)
            free (a->samples[d][k]);
}

/* sel (selection_keys of the step; NULL: all): only the selected targets
   of the agent count. */
static int
fio_acc_load (store_t *store, int64_t run, int step, int64_t agent, json_t *sel, fio_acc_t *a)
{
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < LK_N; k++)
            histogram_reset (&a->hist[d][k]);
    /* Six columns a direction from 3, as report_finalize_step reads them. */
    sqlite3_stmt *st = store_stmt (store,
        "SELECT seq, t_start, t_end, read_ops, read_bytes, read_errors, read_hist, "
        " read_slat_hist, read_lat_hist, write_ops, write_bytes, write_errors, write_hist, "
        " write_slat_hist, write_lat_hist, trim_ops, trim_bytes, trim_errors, trim_hist, "
        " trim_slat_hist, trim_lat_hist, target FROM snapshots "
        "WHERE run_id = ? AND step_idx = ? AND agent_id = ? ORDER BY seq, target");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    sqlite3_bind_int64 (st, 3, agent);
    int cap = 0, last_seq = -1;
    int rc;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        if (sel) {
            char key[MSG_NAME_MAX + 40];
            snprintf (key, sizeof key, "%s\x1f#%d", a->agent, sqlite3_column_int (st, 21));
            if (!json_object_get (sel, key))
                continue;
        }
        int seq = sqlite3_column_int (st, 0);
        uint64_t span = (uint64_t) (sqlite3_column_int64 (st, 2) - sqlite3_column_int64 (st, 1));
        if (seq != last_seq) {
            if (a->nsamples == cap) {
                cap = cap ? cap * 2 : 64;
                for (int d = 0; d < DIR_COUNT; d++)
                    for (int k = 0; k < 2; k++) {
                        double *p = realloc (a->samples[d][k], (size_t) cap * sizeof *p);
                        if (!p) {
                            sqlite3_reset (st);
                            return -1;
                        }
                        a->samples[d][k] = p;
                    }
            }
            for (int d = 0; d < DIR_COUNT; d++)
                a->samples[d][0][a->nsamples] = a->samples[d][1][a->nsamples] = 0;
            a->nsamples++;
            a->window_ns += span;
            last_seq = seq;
        }
        double secs = (double) span / 1e9;
        for (int d = 0; d < DIR_COUNT; d++) {
            int c = 3 + d * 6;
            uint64_t ops = (uint64_t) sqlite3_column_int64 (st, c);
            uint64_t bytes = (uint64_t) sqlite3_column_int64 (st, c + 1);
            a->ops[d] += ops;
            a->bytes[d] += bytes;
            a->errors[d] += (uint64_t) sqlite3_column_int64 (st, c + 2);
            if (secs > 0) {
                a->samples[d][0][a->nsamples - 1] += (double) ops / secs;
                a->samples[d][1][a->nsamples - 1] += (double) bytes / secs;
            }
            for (int k = 0; k < LK_N; k++)
                add_blob (&a->hist[d][k], sqlite3_column_blob (st, c + 3 + k),
                          sqlite3_column_bytes (st, c + 3 + k));
        }
    }
    sqlite3_reset (st);
    return rc == SQLITE_DONE ? 0 : -1;
}

json_t *
report_fio_json (store_t *store, int64_t run, bool plus, json_t *where, const char *where_flag,
                 char *err, size_t errlen)
{
    match_cond_t conds[MATCH_CONDS_MAX];
    int nconds = 0;
    if (!where_flag)
        where_flag = "--where";
    if (where_parse (where, where_flag, conds, &nconds, err, errlen))
        return NULL;
    sqlite3_stmt *st = store_stmt (store,
        "SELECT p.name, p.text, r.started_at, r.intervals_dropped_at FROM runs r "
        "JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (sqlite3_step (st) != SQLITE_ROW) {
        sqlite3_reset (st);
        snprintf (err, errlen, "no run %lld (see 'iofleet runs')", (long long) run);
        return NULL;
    }
    if (sqlite3_column_type (st, 3) != SQLITE_NULL) {
        sqlite3_reset (st);
        snprintf (err, errlen, "run %lld: its per-interval data was removed by iofleet gc, and "
                  "fio's format is made from it; use --format json or text", (long long) run);
        return NULL;
    }
    char plan_err[512];
    jobfile_t *jf = jobfile_parse ((const char *) sqlite3_column_text (st, 0),
                                   (const char *) sqlite3_column_text (st, 1), plan_err,
                                   sizeof plan_err);
    uint64_t started = (uint64_t) sqlite3_column_int64 (st, 2);
    sqlite3_reset (st);
    if (!jf) {
        snprintf (err, errlen, "the stored plan of run %lld no longer parses: %s", (long long) run,
                  plan_err);
        return NULL;
    }
    /* (step, agent) pairs with their agent names. */
    int cap = 0, n = 0;
    fio_acc_t *accs = NULL;
    int *steps = NULL;
    st = store_stmt (store,
        "SELECT sa.step_idx, sa.agent_id, a.name FROM step_agents sa "
        "JOIN agents a ON a.id = sa.agent_id WHERE sa.run_id = ? ORDER BY sa.step_idx, a.name");
    sqlite3_bind_int64 (st, 1, run);
    json_t *doc = NULL;
    int64_t *agents = NULL;
    while (sqlite3_step (st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            fio_acc_t *a = realloc (accs, (size_t) cap * sizeof *a);
            int *s2 = realloc (steps, (size_t) cap * sizeof *s2);
            int64_t *ag = realloc (agents, (size_t) cap * sizeof *ag);
            if (a)
                accs = a;
            if (s2)
                steps = s2;
            if (ag)
                agents = ag;
            if (!a || !s2 || !ag) {
                sqlite3_reset (st);
                snprintf (err, errlen, "out of memory");
                goto out;
            }
        }
        memset (&accs[n], 0, sizeof accs[n]);
        steps[n] = sqlite3_column_int (st, 0);
        agents[n] = sqlite3_column_int64 (st, 1);
        str_copy (accs[n].agent, sizeof accs[n].agent, (const char *) sqlite3_column_text (st, 2));
        n++;
    }
    sqlite3_reset (st);
    static int first[JOB_MAX_STEPS + 1];
    int ngroups = jobfile_group (jf, first);
    /* --where: each step's selected targets (pairs come sorted by step). */
    json_t *sels = json_object (), *values = json_object ();
    int kept = 0;
    for (int i = 0; nconds && i < n; i++) {
        char key[16];
        snprintf (key, sizeof key, "%d", steps[i]);
        if (json_object_get (sels, key))
            continue;
        json_t *sj = json_pack ("{s:o}", "agents",
                                step_agents_json (store, run, steps[i], NULL, NULL, 0));
        kept += groups_select (store, run, steps[i], sj, conds, nconds, values);
        json_object_set_new (sels, key, selection_keys (store, run, steps[i], sj));
        json_decref (sj);
    }
    if (nconds && !kept) {
        where_nothing (where, where_flag, run, &conds[0], values, err, errlen);
        json_decref (sels);
        json_decref (values);
        goto out;
    }
    json_decref (values);
    fio_job_t *jobs = calloc ((size_t) (n ? n : 1), sizeof *jobs);
    if (!jobs) {
        snprintf (err, errlen, "out of memory");
        json_decref (sels);
        goto out;
    }
    int nj = 0;
    for (int i = 0; i < n; i++) {
        char key[16];
        snprintf (key, sizeof key, "%d", steps[i]);
        json_t *sel = nconds ? json_object_get (sels, key) : NULL;
        if (steps[i] >= ngroups || fio_acc_load (store, run, steps[i], agents[i], sel, &accs[i]))
            continue;
        if (accs[i].nsamples == 0)
            continue;       /* refused or lost before measuring: nothing to report */
        /* A step of jobs run together is one entry, named and optioned
           after its first job (its targets are merged). */
        const job_t *jd = &jf->steps[first[steps[i]]];
        fio_job_t *f = &jobs[nj++];
        f->jobname = jd->name;
        f->hostname = accs[i].agent;
        f->groupid = steps[i];
        f->job = jd;
        f->job_runtime_ms = accs[i].window_ns / NS_PER_MS;
        f->percentiles = jd->npercentiles ? jd->percentile_list : NULL;
        f->npercentiles = jd->npercentiles;
        /* latency_target: the depth the agent's search found for that
           first job (0, none stored: fio_json prints the job's iodepth). */
        if (jd->latency_target_ns) {
            sqlite3_stmt *ls = store_stmt (store, "SELECT depth FROM latency_depths "
                "WHERE run_id = ? AND step_idx = ? AND agent_id = ? AND job_idx = 0");
            if (ls) {
                sqlite3_bind_int64 (ls, 1, run);
                sqlite3_bind_int (ls, 2, steps[i]);
                sqlite3_bind_int64 (ls, 3, agents[i]);
                if (sqlite3_step (ls) == SQLITE_ROW)
                    f->latency_depth = (uint32_t) sqlite3_column_int64 (ls, 0);
                sqlite3_reset (ls);
            }
        }
        /* fio prints all three directions; one not reported (no trims)
           stays all zero (jobs is calloc'd), as fio prints it. */
        for (int d = 0; d < DIR_COUNT; d++) {
            if (!dir_reported (d, accs[i].ops[d], accs[i].errors[d]))
                continue;
            fio_dir_t *fd = &f->dir[d];
            fd->ops = accs[i].ops[d];
            fd->bytes = accs[i].bytes[d];
            fd->errors = accs[i].errors[d];
            fd->runtime_ns = fd->ops ? accs[i].window_ns : 0;
            fd->slat = &accs[i].hist[d][LK_SLAT];
            fd->clat = &accs[i].hist[d][LK_CLAT];
            fd->lat = &accs[i].hist[d][LK_LAT];
            fd->iops_samples = accs[i].samples[d][0];
            fd->bw_samples = accs[i].samples[d][1];
            fd->nsamples = accs[i].nsamples;
        }
    }
    char version[64];
    snprintf (version, sizeof version, "iofleet-%s", IOF_VERSION);
    doc = fio_json_report (jobs, nj, plus, version, started / NS_PER_MS);
    if (!doc)
        snprintf (err, errlen, "out of memory");
    free (jobs);
    json_decref (sels);
out:
    for (int i = 0; i < n; i++)
        fio_acc_free (&accs[i]);
    free (accs);
    free (steps);
    free (agents);
    jobfile_destroy (&jf);
    return doc;
}

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
    json_t *since = json_object_get (req, "since_ns");
    if (!step_glob)
        step_glob = "*";
    if (!metric)
        metric = "p99";
    bool known = false;
    for (size_t i = 0; i < sizeof s_history_metrics / sizeof *s_history_metrics; i++)
        known |= strcmp (metric, s_history_metrics[i]) == 0;
    if (!known) {
        snprintf (err, errlen, "--metric '%.32s': use iops, bw, ops, errors, p50, p90, p95, p99, "
                  "p99.9, p99.99, mean, min, max or stddev", metric);
        return NULL;
    }
    if (dir_only && dir_from_name (dir_only) < 0) {
        snprintf (err, errlen, "--direction '%.32s': use read, write or trim", dir_only);
        return NULL;
    }
    match_cond_t conds[MATCH_CONDS_MAX];
    int nconds = 0;
    if (where_parse (where, "--where", conds, &nconds, err, errlen))
        return NULL;
    if (by && groups_key_check (by, err, errlen))
        return NULL;
    if (since && (!json_is_integer (since) || json_integer_value (since) < 0)) {
        snprintf (err, errlen, "'since_ns' must be a time in ns since the epoch");
        return NULL;
    }
    bool grouped = by || nconds;

    /* The runs first: the per-step queries below reuse cached statements. */
    json_t *runs = json_array ();
    sqlite3_stmt *st = store_stmt (store,
        "SELECT r.id, r.created_at, p.name, r.origin FROM runs r JOIN plans p ON p.id = r.plan_id "
        "WHERE r.status IN ('complete', 'partial') AND r.created_at >= ? "
        "ORDER BY r.created_at, r.id");
    sqlite3_bind_int64 (st, 1, since ? json_integer_value (since) : 0);
    while (sqlite3_step (st) == SQLITE_ROW) {
        const char *plan = (const char *) sqlite3_column_text (st, 2);
        if (plan_glob && fnmatch (plan_glob, plan, 0) != 0)
            continue;
        json_array_append_new (runs, json_pack ("{s:I, s:I, s:s, s:s}",
            "run", (json_int_t) sqlite3_column_int64 (st, 0),
            "time_ns", (json_int_t) sqlite3_column_int64 (st, 1), "plan", plan,
            "origin", (const char *) sqlite3_column_text (st, 3)));
    }
    sqlite3_reset (st);

    json_t *rows = json_array ();
    size_t ri;
    json_t *r;
    json_array_foreach (runs, ri, r) {
        int64_t run = json_integer_value (json_object_get (r, "run"));
        json_t *steps = json_array ();
        st = store_stmt (store, "SELECT idx, name FROM steps WHERE run_id = ? ORDER BY idx");
        sqlite3_bind_int64 (st, 1, run);
        while (sqlite3_step (st) == SQLITE_ROW)
            if (fnmatch (step_glob, (const char *) sqlite3_column_text (st, 1), 0) == 0)
                json_array_append_new (steps, json_pack ("{s:i, s:s}", "index",
                    sqlite3_column_int (st, 0), "name", (const char *) sqlite3_column_text (st, 1)));
        sqlite3_reset (st);
        char when[32];
        time_t secs = (time_t) (json_integer_value (json_object_get (r, "time_ns")) / 1000000000);
        struct tm tm;
        gmtime_r (&secs, &tm);
        strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        size_t si;
        json_t *s;
        json_array_foreach (steps, si, s) {
            int idx = (int) json_integer_value (json_object_get (s, "index"));
            /* (group, its directions) of this step. */
            json_t *sets = json_array ();
            if (!grouped) {
                json_t *f = fleet_json (store, run, idx, NULL, 0);
                json_object_set_new (f, "value", json_string ("fleet"));
                json_array_append_new (sets, f);
            } else {
                json_t *sj = json_pack ("{s:o}", "agents",
                                        step_agents_json (store, run, idx, NULL, NULL, 0));
                if (nconds)
                    groups_select (store, run, idx, sj, conds, nconds, NULL);
                if (groups_add (store, run, idx, sj, by, nconds > 0, err, errlen)) {
                    json_decref (sj);
                    json_decref (sets);
                    json_decref (steps);
                    json_decref (rows);
                    json_decref (runs);
                    return NULL;
                }
                json_array_extend (sets, json_object_get (sj, "groups"));
                json_decref (sj);
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
    json_t *out = json_pack ("{s:s, s:s, s:s?, s:o}", "metric", metric, "step", step_glob,
                             "by", by, "rows", rows);
    if (json_array_size (rows) >= HISTORY_ROWS_MAX)
        json_object_set_new (out, "truncated", json_sprintf ("stopped at %d rows; narrow it with "
                             "--since, --step or --where", HISTORY_ROWS_MAX));
    return out;
}

void
report_add_histograms (store_t *store, int64_t run, json_t *rep)
{
    static histogram_t h;
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get (rep, "steps"), i, s) {
        json_t *fleet = json_object_get (s, "fleet");
        sqlite3_stmt *st = store_stmt (store,
            "SELECT direction, hist FROM fleet_results WHERE run_id = ? AND step_idx = ?");
        if (!st || !fleet)
            continue;
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, (int) json_integer_value (json_object_get (s, "index")));
        while (sqlite3_step (st) == SQLITE_ROW) {
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
    }
}
