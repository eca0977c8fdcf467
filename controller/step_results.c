/*  step_results.c: a finished step's results (the write path), see
    step_results.h.

    One pass over the step's stored snapshots, ordered by agent and
    target: each (agent, target) is merged into its results rows, and
    every one into the step's fleet_results.  Percentiles of the fleet
    come from the merged histograms, never from averages.
*/
#include "controller.h"
#include "histogram.h"
#include "log.h"
#include "series.h"

#include <string.h>

typedef struct {
    uint64_t agent_id;
    int target;
    uint64_t window_ns;
    int snapshots;
    uint64_t ops[DIR_COUNT], bytes[DIR_COUNT], errors[DIR_COUNT];
    histogram_t hist[DIR_COUNT][LK_N];
} acc_t;

/* The names of agent's targets in the step (an empty list when it has
   none); *failed set on a database error (logged).  Can't fail
   otherwise. */
static json_t *
targets_of (store_t *store, int64_t run, int step, uint64_t agent, bool *failed)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT targets FROM step_agents "
                                          "WHERE run_id = ? AND step_idx = ? AND agent_id = ?");
    sqlite3_bind_int64 (st, 1, run);
    sqlite3_bind_int (st, 2, step);
    sqlite3_bind_int64 (st, 3, (sqlite3_int64) agent);
    json_t *list = NULL;
    int rc = store_row (store, st, "read the agent's targets");
    if (rc == 1)
        list = json_loads ((const char *) sqlite3_column_text (st, 0), 0, NULL);
    sqlite3_reset (st);
    *failed |= rc < 0;
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
    bool have = false, failed = false;
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
        int rc = store_row (store, st, "read the step's snapshots");
        if (rc < 0) {
            failed = true;      /* what is accumulated is not all: not stored */
            break;
        }
        uint64_t agent = rc == 1 ? (uint64_t) sqlite3_column_int64 (st, 0) : 0;
        int target = rc == 1 ? sqlite3_column_int (st, 1) : -1;
        if (have && (rc != 1 || agent != acc.agent_id || target != acc.target)) {
            /* Flush the finished (agent, target). */
            if (acc.agent_id != last_agent) {
                if (nagents && totals)
                    totals (arg, last_agent, agent_ops, agent_bytes);
                agent_ops = agent_bytes = 0;
                json_decref (targets);
                targets = targets_of (store, run, step, acc.agent_id, &failed);
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
            if (save_result (store, run, step, &acc, name ? json_string_value (name) : fallback))
                failed = true;
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
        if (rc != 1)
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
                if (series_blob_add (&acc.hist[d][k], sqlite3_column_blob (st, c + 3 + k),
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
    if (failed) {
        /* Fleet figures of part of the step would pass for the whole. */
        log_err ("run %lld step %d: a database error left the step's results incomplete; "
                 "its fleet results are not stored", (long long) run, step);
        return -1;
    }

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
        if (store_step_done (store, st, "store fleet result"))
            failed = true;
    }
    return bad || failed ? -1 : 0;
}
