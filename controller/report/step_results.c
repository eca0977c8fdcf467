/*  step_results.c: a finished step's results (the write path), see
    step_results.h.

    One pass over the step's stored snapshots, ordered by agent and
    target: each (agent, target) is merged into its results rows, and
    every one into the step's fleet_results.  Percentiles of the fleet
    come from the merged histograms, never from averages.  The rows are
    held in memory (their histograms encoded) until they are saved.
*/
#include "controller.h"
#include "histogram.h"
#include "log.h"
#include "series.h"
#include "util.h"
#include "snapshot_store.h"
#include "step_results.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t agent_id;
    int target;
    uint64_t window_ns;
    int snapshots;
    uint64_t ops[DIR_COUNT], bytes[DIR_COUNT], errors[DIR_COUNT];
    histogram_t hist[DIR_COUNT][LK_N];
} acc_t;

/* An encoded histogram; an empty one (n 0) is stored as an empty blob. */
typedef struct {
    uint8_t *p;
    int n;
} blob_t;

typedef struct {
    uint64_t agent_id;
    char *target;
    int dir;
    uint64_t ops, bytes, errors, window_ns;
    double iops, bw;
    uint64_t lat_min, lat_max;
    double lat_mean, lat_stddev;
    int snapshots;
    blob_t hist[LK_N];
} row_t;

typedef struct {
    bool reported;
    int agents;
    uint64_t ops, bytes, errors;
    double iops, bw;
    blob_t hist[LK_N];
} fleet_row_t;

typedef struct {
    uint64_t agent_id, ops, bytes;
} total_t;

struct step_results {
    int64_t run;
    int step;
    row_t *rows;
    size_t nrows, caprows;
    fleet_row_t fleet[DIR_COUNT];
    total_t *totals;
    size_t ntotals, captotals;
    int bad;
};

static const uint8_t empty_blob[1];

/* h encoded into b.  Returns 0, or -1 when out of memory. */
static int
blob_of (blob_t *b, const histogram_t *h, uint8_t *buf)
{
    int n = histogram_encode (h, buf, HIST_WIRE_MAX);
    b->n = n > 0 ? n : 0;
    b->p = NULL;
    if (b->n == 0)
        return 0;
    b->p = malloc ((size_t) b->n);
    if (!b->p)
        return -1;
    memcpy (b->p, buf, (size_t) b->n);
    return 0;
}

static int
bind_blob (sqlite3_stmt *st, int col, const blob_t *b)
{
    return sqlite3_bind_blob (st, col, b->p ? (const void *) b->p : empty_blob, b->n,
                              SQLITE_STATIC);
}

/* The names of agent's targets in the step, or an empty list (an agent
   that recorded none).  NULL on a database error (logged): a read error
   is never taken for an agent without targets. */
static json_t *
targets_of (sqlite3_stmt *st, uint64_t agent)
{
    sqlite3_reset (st);
    sqlite3_bind_int64 (st, 3, (sqlite3_int64) agent);
    json_t *list = NULL;
    int rc = sqlite3_step (st);
    if (rc == SQLITE_ROW)
        list = json_loads ((const char *) sqlite3_column_text (st, 0), 0, NULL);
    else if (rc != SQLITE_DONE) {
        log_err ("cannot read agent %llu's targets: %s", (unsigned long long) agent,
                 sqlite3_errmsg (sqlite3_db_handle (st)));
        sqlite3_reset (st);
        return NULL;
    }
    sqlite3_reset (st);
    return list ? list : json_array ();
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

/* The rows of one (agent, target): one per direction reported
   (dir_reported).  Returns 0, or -1 when out of memory. */
static int
add_rows (step_results_t *self, const acc_t *a, const char *target, uint8_t *buf)
{
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!dir_reported (d, a->ops[d], a->errors[d]))
            continue;
        row_t *rows = array_room (self->rows, &self->caprows, self->nrows, sizeof *rows, 256);
        if (!rows)
            return -1;
        self->rows = rows;
        row_t *w = &self->rows[self->nrows];
        memset (w, 0, sizeof *w);
        const histogram_t *h = &a->hist[d][LK_CLAT];
        double secs = (double) a->window_ns / 1e9;
        w->agent_id = a->agent_id;
        w->target = strdup (target);
        w->dir = d;
        w->ops = a->ops[d];
        w->bytes = a->bytes[d];
        w->errors = a->errors[d];
        w->window_ns = a->window_ns;
        w->iops = secs > 0 ? (double) a->ops[d] / secs : 0;
        w->bw = secs > 0 ? (double) a->bytes[d] / secs : 0;
        w->lat_min = h->count ? h->min : 0;
        w->lat_max = h->max;
        w->lat_mean = histogram_mean (h);
        w->lat_stddev = histogram_stddev (h);
        w->snapshots = a->snapshots;
        self->nrows++;      /* now owned: freed by destroy, whatever follows */
        if (!w->target)
            return -1;
        for (int k = 0; k < LK_N; k++)
            if (blob_of (&w->hist[k], &a->hist[d][k], buf))
                return -1;
    }
    return 0;
}

/* Adds agent's totals.  Returns 0, or -1 when out of memory. */
static int
add_total (step_results_t *self, uint64_t agent, uint64_t ops, uint64_t bytes)
{
    total_t *t = array_room (self->totals, &self->captotals, self->ntotals, sizeof *t, 64);
    if (!t)
        return -1;
    self->totals = t;
    self->totals[self->ntotals++] = (total_t) { agent, ops, bytes };
    return 0;
}

/* What the pass needs beside the results: freed by work_free. */
typedef struct {
    acc_t *acc;
    histogram_t (*fleet)[LK_N];
    uint8_t *buf;
    sqlite3_stmt *snaps, *targets;
} work_t;

static void
work_free (work_t *w)
{
    free (w->acc);
    free (w->fleet);
    free (w->buf);
    sqlite3_finalize (w->snaps);
    sqlite3_finalize (w->targets);
}

step_results_t *
step_results_compute (sqlite3 *db, int64_t run, int step, const atomic_bool *stop)
{
    step_results_t *self = calloc (1, sizeof *self);
    work_t w = { 0 };
    w.acc = calloc (1, sizeof *w.acc);
    w.fleet = calloc (DIR_COUNT, sizeof *w.fleet);
    w.buf = malloc (HIST_WIRE_MAX);
    if (!self || !w.acc || !w.fleet || !w.buf) {
        log_err ("run %lld step %d: out of memory for its results", (long long) run, step);
        work_free (&w);
        step_results_destroy (&self);
        return NULL;
    }
    self->run = run;
    self->step = step;
    /* Six columns a direction from 4, in direction order: ops, bytes,
       errors, then the histograms in LK order: clat, slat, lat. */
    if (sqlite3_prepare_v2 (db,
            "SELECT agent_id, target, t_start, t_end, read_ops, read_bytes, read_errors, "
            " read_hist, read_slat_hist, read_lat_hist, write_ops, write_bytes, write_errors, "
            " write_hist, write_slat_hist, write_lat_hist, trim_ops, trim_bytes, trim_errors, "
            " trim_hist, trim_slat_hist, trim_lat_hist FROM snapshots "
            "WHERE run_id = ? AND step_idx = ? ORDER BY agent_id, target, seq", -1, &w.snaps,
            NULL) != SQLITE_OK
        || sqlite3_prepare_v2 (db, "SELECT targets FROM step_agents "
                               "WHERE run_id = ? AND step_idx = ? AND agent_id = ?", -1,
                               &w.targets, NULL) != SQLITE_OK) {
        log_err ("run %lld step %d: cannot read its snapshots: %s", (long long) run, step + 1,
                 sqlite3_errmsg (db));
        work_free (&w);
        step_results_destroy (&self);
        return NULL;
    }
    sqlite3_bind_int64 (w.snaps, 1, run);
    sqlite3_bind_int (w.snaps, 2, step);
    sqlite3_bind_int64 (w.targets, 1, run);
    sqlite3_bind_int (w.targets, 2, step);
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < LK_N; k++)
            histogram_reset (&w.fleet[d][k]);
    acc_t *acc = w.acc;
    uint64_t agent_ops = 0, agent_bytes = 0;  /* of last_agent, for totals */
    int nagents = 0, failed = 0;
    uint64_t last_agent = 0;
    bool have = false;
    json_t *targets = NULL;
    for (uint64_t nrow = 0;; nrow++) {
        if (stop && (nrow & 255) == 0 && atomic_load (stop)) {
            failed = 1;
            break;
        }
        int rc = sqlite3_step (w.snaps);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            log_err ("run %lld step %d: cannot read its snapshots: %s", (long long) run,
                     step + 1, sqlite3_errmsg (db));
            failed = 1;
            break;
        }
        uint64_t agent = rc == SQLITE_ROW ? (uint64_t) sqlite3_column_int64 (w.snaps, 0) : 0;
        int target = rc == SQLITE_ROW ? sqlite3_column_int (w.snaps, 1) : -1;
        if (have && (rc != SQLITE_ROW || agent != acc->agent_id || target != acc->target)) {
            /* Flush the finished (agent, target). */
            if (acc->agent_id != last_agent) {
                if (nagents && add_total (self, last_agent, agent_ops, agent_bytes))
                    failed = 1;
                agent_ops = agent_bytes = 0;
                json_decref (targets);
                targets = targets_of (w.targets, acc->agent_id);
                if (!targets)
                    failed = 1;
                nagents++;
                last_agent = acc->agent_id;
            }
            for (int d = 0; d < DIR_COUNT; d++) {
                agent_ops += acc->ops[d];
                agent_bytes += acc->bytes[d];
            }
            json_t *name = json_array_get (targets, (size_t) acc->target);
            char fallback[32];
            snprintf (fallback, sizeof fallback, "#%d", acc->target);
            if (add_rows (self, acc, name ? json_string_value (name) : fallback, w.buf))
                failed = 1;
            double secs = (double) acc->window_ns / 1e9;
            for (int d = 0; d < DIR_COUNT; d++) {
                fleet_row_t *f = &self->fleet[d];
                for (int k = 0; k < LK_N; k++)
                    histogram_merge (&w.fleet[d][k], &acc->hist[d][k]);
                f->ops += acc->ops[d];
                f->bytes += acc->bytes[d];
                f->errors += acc->errors[d];
                f->iops += secs > 0 ? (double) acc->ops[d] / secs : 0;
                f->bw += secs > 0 ? (double) acc->bytes[d] / secs : 0;
            }
            have = false;
        }
        if (rc != SQLITE_ROW || failed)
            break;
        if (!have) {
            acc_reset (acc);
            acc->agent_id = agent;
            acc->target = target;
            have = true;
        }
        acc->snapshots++;
        acc->window_ns += (uint64_t) (sqlite3_column_int64 (w.snaps, 3)
                                      - sqlite3_column_int64 (w.snaps, 2));
        for (int d = 0; d < DIR_COUNT; d++) {
            int c = 4 + d * 6;
            acc->ops[d] += (uint64_t) sqlite3_column_int64 (w.snaps, c);
            acc->bytes[d] += (uint64_t) sqlite3_column_int64 (w.snaps, c + 1);
            acc->errors[d] += (uint64_t) sqlite3_column_int64 (w.snaps, c + 2);
            for (int k = 0; k < LK_N; k++)
                if (series_blob_add (&acc->hist[d][k], sqlite3_column_blob (w.snaps, c + 3 + k),
                                     sqlite3_column_bytes (w.snaps, c + 3 + k)))
                    self->bad++;
        }
    }
    if (!failed && nagents && add_total (self, last_agent, agent_ops, agent_bytes))
        failed = 1;
    json_decref (targets);
    for (int d = 0; d < DIR_COUNT && !failed; d++) {
        fleet_row_t *f = &self->fleet[d];
        f->reported = dir_reported (d, f->ops, f->errors);
        f->agents = nagents;
        for (int k = 0; k < LK_N && f->reported; k++)
            if (blob_of (&f->hist[k], &w.fleet[d][k], w.buf))
                failed = 1;
    }
    work_free (&w);
    if (failed) {
        step_results_destroy (&self);
        return NULL;
    }
    if (self->bad)
        log_err ("run %lld step %d: %d stored histogram(s) did not decode", (long long) run,
                 step, self->bad);
    return self;
}

void
step_results_destroy (step_results_t **self_p)
{
    step_results_t *self = *self_p;
    if (!self)
        return;
    for (size_t i = 0; i < self->nrows; i++) {
        free (self->rows[i].target);
        for (int k = 0; k < LK_N; k++)
            free (self->rows[i].hist[k].p);
    }
    free (self->rows);
    for (int d = 0; d < DIR_COUNT; d++)
        for (int k = 0; k < LK_N; k++)
            free (self->fleet[d].hist[k].p);
    free (self->totals);
    free (self);
    *self_p = NULL;
}

int
step_results_save (const step_results_t *self, sqlite3 *db)
{
    sqlite3_stmt *st = NULL, *fst = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2 (db,
            "INSERT OR REPLACE INTO results (run_id, step_idx, agent_id, target, direction, ops, "
            " bytes, errors, window_ns, iops, bw, lat_min, lat_max, lat_mean, lat_stddev, "
            " snapshots, hist, slat_hist, lat_hist) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK
        || sqlite3_prepare_v2 (db,
            "INSERT OR REPLACE INTO fleet_results (run_id, step_idx, direction, agents, ops, bytes, "
            " errors, iops, bw, hist, slat_hist, lat_hist) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", -1,
            &fst, NULL) != SQLITE_OK)
        goto out;
    for (size_t i = 0; i < self->nrows; i++) {
        const row_t *w = &self->rows[i];
        sqlite3_reset (st);
        sqlite3_bind_int64 (st, 1, self->run);
        sqlite3_bind_int (st, 2, self->step);
        sqlite3_bind_int64 (st, 3, (sqlite3_int64) w->agent_id);
        sqlite3_bind_text (st, 4, w->target, -1, SQLITE_STATIC);
        sqlite3_bind_text (st, 5, dir_name (w->dir), -1, SQLITE_STATIC);
        sqlite3_bind_int64 (st, 6, (sqlite3_int64) w->ops);
        sqlite3_bind_int64 (st, 7, (sqlite3_int64) w->bytes);
        sqlite3_bind_int64 (st, 8, (sqlite3_int64) w->errors);
        sqlite3_bind_int64 (st, 9, (sqlite3_int64) w->window_ns);
        sqlite3_bind_double (st, 10, w->iops);
        sqlite3_bind_double (st, 11, w->bw);
        sqlite3_bind_int64 (st, 12, (sqlite3_int64) w->lat_min);
        sqlite3_bind_int64 (st, 13, (sqlite3_int64) w->lat_max);
        sqlite3_bind_double (st, 14, w->lat_mean);
        sqlite3_bind_double (st, 15, w->lat_stddev);
        sqlite3_bind_int (st, 16, w->snapshots);
        for (int k = 0; k < LK_N; k++)
            bind_blob (st, 17 + k, &w->hist[k]);
        if (sqlite3_step (st) != SQLITE_DONE)
            goto out;
    }
    for (int d = 0; d < DIR_COUNT; d++) {
        const fleet_row_t *f = &self->fleet[d];
        if (!f->reported)
            continue;
        sqlite3_reset (fst);
        sqlite3_bind_int64 (fst, 1, self->run);
        sqlite3_bind_int (fst, 2, self->step);
        sqlite3_bind_text (fst, 3, dir_name (d), -1, SQLITE_STATIC);
        sqlite3_bind_int (fst, 4, f->agents);
        sqlite3_bind_int64 (fst, 5, (sqlite3_int64) f->ops);
        sqlite3_bind_int64 (fst, 6, (sqlite3_int64) f->bytes);
        sqlite3_bind_int64 (fst, 7, (sqlite3_int64) f->errors);
        sqlite3_bind_double (fst, 8, f->iops);
        sqlite3_bind_double (fst, 9, f->bw);
        for (int k = 0; k < LK_N; k++)
            bind_blob (fst, 10 + k, &f->hist[k]);
        if (sqlite3_step (fst) != SQLITE_DONE)
            goto out;
    }
    rc = 0;
out:
    if (rc)
        log_err ("run %lld step %d: cannot store its results: %s", (long long) self->run,
                 self->step + 1, sqlite3_errmsg (db));
    sqlite3_finalize (st);
    sqlite3_finalize (fst);
    return rc;
}

void
step_results_totals (const step_results_t *self, report_agent_fn *fn, void *arg)
{
    for (size_t i = 0; i < self->ntotals; i++)
        fn (arg, self->totals[i].agent_id, self->totals[i].ops, self->totals[i].bytes);
}

int
step_results_bad (const step_results_t *self)
{
    return self->bad;
}

step_results_t *
step_results_store (store_t *store, int64_t run, int step)
{
    if (store_begin (store))
        return NULL;
    step_results_t *sr = step_results_compute (store_db (store), run, step, NULL);
    if (!sr || step_results_save (sr, store_db (store))) {
        store_note_failure (store, "store step results");
        step_results_destroy (&sr);
    }
    return sr;
}

