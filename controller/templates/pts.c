/*  pts.c: a run's SNIA PTS report, see pts.h. */
#include "controller.h"
#include "pts.h"
#include "histogram.h"
#include "rounds.h"
#include "util.h"
#include "rounds_steady.h"
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One drive's figures in one cell, summed over its window's rounds. */
typedef struct {
    int plan_step;
    int rounds;                     /* rounds of the window that had figures */
    double iops, bw;                /* sums over those rounds */
    double lat_ops, ops;            /* sum of mean x ops, and of ops */
} cell_t;

typedef struct {
    int64_t agent;
    char agent_name[MSG_NAME_MAX + 1];
    char target[MSG_PATH_MAX + JOB_NAME_MAX + 2];
    bool steady;
    int lo, hi;                     /* the window's rounds */
    cell_t *cells;                  /* by plan_step, ncells */
} drive_t;

/* The drive (agent, target) of d[0..n), or NULL. */
static drive_t *
s_find_drive (drive_t *d, size_t n, int64_t agent, const char *target)
{
    for (size_t i = n; i-- > 0;)
        if (d[i].agent == agent && strcmp (d[i].target, target) == 0)
            return &d[i];
    return NULL;
}

static void
s_free_drives (drive_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free (d[i].cells);
    free (d);
}

/* The run's plan and status into q.  Can't fail (a read error leaves
   them out, logged). */
static void
s_run_head (store_t *store, int64_t run, json_t *q)
{
    sqlite3_stmt *st = store_stmt (store, "SELECT p.name, r.status FROM runs r "
                                          "JOIN plans p ON p.id = r.plan_id WHERE r.id = ?");
    sqlite3_bind_int64 (st, 1, run);
    if (store_row (store, st, "read the run") == 1) {
        json_object_set_new (q, "plan", json_string ((const char *) sqlite3_column_text (st, 0)));
        json_object_set_new (q, "status", json_string ((const char *) sqlite3_column_text (st, 1)));
    }
    sqlite3_reset (st);
}

bool
pts_is_wsat (json_t *job)
{
    const char *rw = json_string_value (json_object_get (job, "rw"));
    return rw && strcmp (rw, "randwrite") == 0
           && !json_is_true (json_object_get (job, "time_based"));
}

/* The write-saturation curves of run: for each size-bound random-write
   step, per interval of the fleet's series (fleet_intervals) the IOPS per
   drive, the p99 and mean of the writes, and the bytes written per drive
   so far; and the first and last minute's mean IOPS per drive, and the
   change between them.  An empty array when the run has no such step;
   NULL on a database error (err set). */
static json_t *
s_wsat_json (store_t *store, int64_t run, char *err, size_t errlen)
{
    static _Thread_local histogram_t h;
    json_t *out = json_array ();
    typedef struct { int idx; char name[128]; } wstep_t;
    wstep_t ws[JOB_MAX_STEPS];
    int nws = 0, rc;
    sqlite3_stmt *st = store_stmt (store,
        "SELECT idx, name, spec FROM steps WHERE run_id = ? ORDER BY idx");
    sqlite3_bind_int64 (st, 1, run);
    while ((rc = store_row (store, st, "read the run's steps")) == 1 && nws < JOB_MAX_STEPS) {
        json_t *spec = json_loads ((const char *) sqlite3_column_text (st, 2), 0, NULL);
        if (pts_is_wsat (spec)) {
            ws[nws].idx = sqlite3_column_int (st, 0);
            str_copy (ws[nws].name, sizeof ws[nws].name, (const char *) sqlite3_column_text (st, 1));
            nws++;
        }
        json_decref (spec);
    }
    sqlite3_reset (st);
    for (int k = 0; k < nws && rc >= 0; k++) {
        st = store_stmt (store, "SELECT COUNT(*) FROM (SELECT DISTINCT agent_id, target FROM "
                                "results WHERE run_id = ? AND step_idx = ?)");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, ws[k].idx);
        double drives = store_row (store, st, "count the step's drives") == 1
                        ? sqlite3_column_double (st, 0) : 0;
        sqlite3_reset (st);
        if (drives <= 0)
            continue;
        json_t *pts = json_array ();
        st = store_stmt (store,
            "SELECT seq, agents, t_start, span_ns, write_ops, write_bytes, write_hist "
            "FROM fleet_intervals WHERE run_id = ? AND step_idx = ? ORDER BY seq");
        sqlite3_bind_int64 (st, 1, run);
        sqlite3_bind_int (st, 2, ws[k].idx);
        double written = 0, t0 = -1, first_sum = 0, last_sum = 0;
        int first_n = 0;
        double tail[60];
        int ntail = 0;
        while ((rc = store_row (store, st, "read the step's series")) == 1) {
            double agents = sqlite3_column_double (st, 1), span = sqlite3_column_double (st, 3);
            double t = sqlite3_column_double (st, 2) / 1e9;
            if (t0 < 0)
                t0 = t;
            double secs = agents > 0 ? span / agents / 1e9 : 0;
            double ops = sqlite3_column_double (st, 4);
            written += sqlite3_column_double (st, 5) / drives;
            double iops = secs > 0 ? ops / secs / drives : 0;
            json_t *p = json_pack ("{s:i, s:f, s:f, s:f}", "seq", sqlite3_column_int (st, 0),
                                   "t_s", t - t0, "iops_per_drive", iops,
                                   "written_per_drive", written);
            const void *blob = sqlite3_column_blob (st, 6);
            if (blob && histogram_decode (&h, blob, (size_t) sqlite3_column_bytes (st, 6)) == 0
                && h.count) {
                json_object_set_new (p, "p99", json_integer ((json_int_t) histogram_percentile (&h,
                                                                                        99)));
                json_object_set_new (p, "mean", json_real (histogram_mean (&h)));
            }
            json_array_append_new (pts, p);
            if (t - t0 < 60) {
                first_sum += iops;
                first_n++;
            }
            tail[ntail++ % 60] = iops;
        }
        sqlite3_reset (st);
        int nlast = ntail < 60 ? ntail : 60;
        for (int i = 0; i < nlast; i++)
            last_sum += tail[i];
        double first = first_n ? first_sum / first_n : NAN, last = nlast ? last_sum / nlast : NAN;
        json_t *w = json_pack ("{s:s, s:i, s:f, s:o}", "step", ws[k].name, "step_index",
                               ws[k].idx, "drives", drives, "intervals", pts);
        if (isfinite (first) && isfinite (last) && first > 0) {
            json_object_set_new (w, "first_minute_iops", json_real (first));
            json_object_set_new (w, "last_minute_iops", json_real (last));
            json_object_set_new (w, "change_pct", json_real (100 * (last / first - 1)));
        }
        json_array_append_new (out, w);
    }
    if (rc < 0) {
        json_decref (out);
        snprintf (err, errlen, "database error reading run %lld's series; see the controller's "
                  "log", (long long) run);
        return NULL;
    }
    return out;
}

/* The PTS's steady-state s_verification of drive x over its window, from
   the tracked figures the run's rounds stored (ro: rounds_steady_report's): the
   window's figures, their mean, the least-squares line's ends, the
   bands the PTS draws (the mean +- half the range limit: its "110% and
   90% of the average"; the mean +- half the slope limit, which the line's
   ends stay within exactly when the slope rule holds), and each rule's
   verdict (rounds.h).  NULL without a steady_state= rule or figures. */
static json_t *
s_verification (json_t *ro, const drive_t *x)
{
    json_t *rule = json_object_get (ro, "steady_state"), *dr = NULL, *e;
    size_t i;
    json_array_foreach (json_object_get (ro, "drives"), i, e)
        if (json_integer_value (json_object_get (e, "agent_id")) == x->agent
            && strcmp (json_string_value (json_object_get (e, "target")), x->target) == 0)
            dr = e;
    int w = x->hi - x->lo + 1;
    json_t *fig = json_object_get (dr, "figures");
    if (!rule || !dr || w < 2 || w > ROUNDS_MAX || (size_t) x->hi > json_array_size (fig))
        return NULL;
    rounds_rule_t r = { .window = w,
                        .range_pct = json_number_value (json_object_get (rule, "range_pct")),
                        .slope_pct = json_number_value (json_object_get (rule, "slope_pct")) };
    double y[ROUNDS_MAX];
    json_t *rounds = json_array (), *values = json_array ();
    for (int k = 0; k < w; k++) {
        json_t *v = json_array_get (fig, (size_t) (x->lo - 1 + k));
        if (!json_is_number (v)) {
            json_decref (rounds);
            json_decref (values);
            return NULL;            /* a round without the figure: no line to draw */
        }
        y[k] = json_number_value (v);
        json_array_append_new (rounds, json_integer (x->lo + k));
        json_array_append_new (values, json_real (y[k]));
    }
    rounds_window_t j;
    rounds_judge (&r, y, w, &j);
    double half = j.slope * (w - 1) / 2;
    return json_pack ("{s:s, s:o, s:o, s:f, s:f, s:f, s:f, s:[f, f], s:[f, f], s:[f, f], s:b, "
                      "s:b}", "metric", json_string_value (json_object_get (rule, "metric")),
                      "rounds", rounds, "values", values, "mean", j.mean,
                      "range_pct", j.range_pct, "slope", j.slope, "excursion_pct",
                      j.excursion_pct, "fit", j.mean - half, j.mean + half, "range_band",
                      j.mean * (1 - r.range_pct / 200), j.mean * (1 + r.range_pct / 200),
                      "slope_band", j.mean * (1 - r.slope_pct / 200),
                      j.mean * (1 + r.slope_pct / 200), "range_ok", j.range_ok, "slope_ok",
                      j.slope_ok);
}

/* The rounds' matrix while it is read: its cells (the plan's steps that
   ran as rounds) and each drive's figures in them. */
typedef struct {
    json_t *cells;
    int maxstep;                    /* the highest plan_step of a cell */
    drive_t *d;                     /* d[0..nd) */
    size_t nd, capd;
} matrix_t;

/* The fleet's cells being summed: per cell, the drives counted and the
   sums of their IOPS, bandwidth and mean latency (NULL when out of
   memory: then no drive is counted). */
typedef struct {
    double *iops, *bw, *mean;
    int *n;
} fleet_sums_t;

/* The plan's steps that ran as rounds, their names and jobs, into
   m->cells.  Returns 0, or -1 on a database error (logged). */
static int
s_read_cells (store_t *store, int64_t run, matrix_t *m)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT plan_step, name, spec FROM steps WHERE run_id = ? AND round = 1 ORDER BY idx");
    sqlite3_bind_int64 (st, 1, run);
    int rc;
    while ((rc = store_row (store, st, "read the run's round steps")) == 1) {
        json_t *spec = json_loads ((const char *) sqlite3_column_text (st, 2), 0, NULL);
        int ps = sqlite3_column_int (st, 0);
        json_t *cell = json_pack ("{s:i, s:s, s:O, s:O, s:O}", "plan_step", ps,
            "step", (const char *) sqlite3_column_text (st, 1), "rw",
            json_object_get (spec, "rw") ? json_object_get (spec, "rw") : json_null (),
            "rwmixread", json_object_get (spec, "rwmixread") ? json_object_get (spec, "rwmixread")
                                                             : json_null (),
            "bs", json_object_get (spec, "bs") ? json_object_get (spec, "bs") : json_null ());
        json_decref (spec);
        /* Its column of the matrix: the read/write mix ("R65/W35"), or
           the rw; its row is its block size. */
        const char *rw = json_string_value (json_object_get (cell, "rw"));
        double mix = json_number_value (json_object_get (cell, "rwmixread"));
        json_object_set_new (cell, "column", rw && (!strcmp (rw, "randrw") || !strcmp (rw, "rw"))
                             ? json_sprintf ("R%.0f/W%.0f", mix, 100 - mix)
                             : json_string (rw ? rw : "?"));
        json_array_append_new (m->cells, cell);
        m->maxstep = ps > m->maxstep ? ps : m->maxstep;
    }
    sqlite3_reset (st);
    return rc < 0 ? rc : 0;
}

/* Room for one more drive in m, its cells zeroed: NULL when out of
   memory. */
static drive_t *
s_new_drive (matrix_t *m)
{
    if (m->nd == m->capd) {
        size_t cap = m->capd ? m->capd * 2 : 16;
        drive_t *bigger = realloc (m->d, cap * sizeof *m->d);
        if (!bigger)
            return NULL;
        m->d = bigger;
        m->capd = cap;
    }
    drive_t *x = &m->d[m->nd];
    memset (x, 0, sizeof *x);
    x->cells = calloc ((size_t) m->maxstep + 1, sizeof *x->cells);
    if (!x->cells)
        return NULL;
    m->nd++;
    return x;
}

/* The drives that ran rounds, each with the window of the last rounds
   run (the steady ones' windows are set by s_steady_windows).  Returns
   0, -1 on a database error (logged), or -2 when out of memory. */
static int
s_read_drives (store_t *store, int64_t run, matrix_t *m, int rounds_run, int window)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT DISTINCT r.agent_id, a.name, r.target FROM results r "
        "JOIN steps s ON s.run_id = r.run_id AND s.idx = r.step_idx "
        "LEFT JOIN agents a ON a.id = r.agent_id "
        "WHERE r.run_id = ? AND s.round IS NOT NULL ORDER BY a.name, r.target");
    sqlite3_bind_int64 (st, 1, run);
    int rc;
    while ((rc = store_row (store, st, "read the run's drives")) == 1) {
        drive_t *x = s_new_drive (m);
        if (!x) {
            rc = -2;
            break;
        }
        x->agent = sqlite3_column_int64 (st, 0);
        str_copy (x->agent_name, sizeof x->agent_name, sqlite3_column_text (st, 1)
                  ? (const char *) sqlite3_column_text (st, 1) : "");
        str_copy (x->target, sizeof x->target, (const char *) sqlite3_column_text (st, 2));
        x->lo = rounds_run - window + 1 > 1 ? rounds_run - window + 1 : 1;
        x->hi = rounds_run;
    }
    sqlite3_reset (st);
    return rc < 0 ? rc : 0;
}

/* Each steady drive's window, from what rounds.c stored (ro's
   "drives").  Can't fail. */
static void
s_steady_windows (json_t *ro, matrix_t *m, int window)
{
    size_t i;
    json_t *dj;
    json_array_foreach (json_object_get (ro, "drives"), i, dj) {
        /* The tracked step's targets: with jobs run together "JOB:PATH". */
        drive_t *x = s_find_drive (m->d, m->nd, json_integer_value (json_object_get (dj, "agent_id")),
                                   json_string_value (json_object_get (dj, "target")));
        if (x && json_is_true (json_object_get (dj, "steady"))) {
            x->steady = true;
            x->hi = (int) json_integer_value (json_object_get (dj, "steady_round"));
            x->lo = x->hi - window + 1;
        }
    }
}

/* Each drive's figures in each cell, summed over its window's rounds.
   Returns 0, or -1 on a database error (logged). */
static int
s_read_figures (store_t *store, int64_t run, matrix_t *m)
{
    sqlite3_stmt *st = store_stmt (store,
        "SELECT s.plan_step, s.round, r.agent_id, r.target, SUM(r.iops), SUM(r.bw), "
        " SUM(r.lat_mean * r.ops), SUM(r.ops) FROM results r "
        "JOIN steps s ON s.run_id = r.run_id AND s.idx = r.step_idx "
        "WHERE r.run_id = ? AND s.round IS NOT NULL "
        "GROUP BY s.idx, r.agent_id, r.target");
    sqlite3_bind_int64 (st, 1, run);
    int rc;
    while ((rc = store_row (store, st, "read the rounds' results")) == 1) {
        int ps = sqlite3_column_int (st, 0), round = sqlite3_column_int (st, 1);
        drive_t *x = s_find_drive (m->d, m->nd, sqlite3_column_int64 (st, 2),
                                   (const char *) sqlite3_column_text (st, 3));
        if (!x || ps < 0 || ps > m->maxstep || round < x->lo || round > x->hi)
            continue;
        cell_t *c = &x->cells[ps];
        c->rounds++;
        c->iops += sqlite3_column_double (st, 4);
        c->bw += sqlite3_column_double (st, 5);
        c->lat_ops += sqlite3_column_double (st, 6);
        c->ops += sqlite3_column_double (st, 7);
    }
    sqlite3_reset (st);
    return rc < 0 ? rc : 0;
}

/* Drive x's entry of the report: its window and its cells' figures, and
   its steady-state verification; its cells count in the fleet's sums
   when it is steady or no drive is.  Can't fail. */
static json_t *
s_drive_json (const matrix_t *m, const drive_t *x, json_t *ro, int nsteady, fleet_sums_t *f)
{
    json_t *xc = json_array ();
    size_t i;
    json_t *c;
    json_array_foreach (m->cells, i, c) {
        int ps = (int) json_integer_value (json_object_get (c, "plan_step"));
        const cell_t *v = &x->cells[ps];
        json_t *o = json_deep_copy (c);
        json_object_set_new (o, "rounds", json_integer (v->rounds));
        if (v->rounds) {
            double iops = v->iops / v->rounds, bw = v->bw / v->rounds;
            double mean = v->ops > 0 ? v->lat_ops / v->ops : NAN;
            json_object_set_new (o, "iops", json_real (iops));
            json_object_set_new (o, "bw", json_real (bw));
            json_object_set_new (o, "mean", isfinite (mean) ? json_real (mean) : json_null ());
            if (f->iops && f->bw && f->mean && f->n && (x->steady || !nsteady)
                && isfinite (mean)) {
                f->iops[i] += iops;
                f->bw[i] += bw;
                f->mean[i] += mean;
                f->n[i]++;
            }
        }
        json_array_append_new (xc, o);
    }
    json_t *dj = json_pack ("{s:s, s:I, s:s, s:b, s:[i, i], s:o}",
        "agent", x->agent_name, "agent_id", (json_int_t) x->agent, "target", x->target,
        "steady", x->steady, "window", x->lo, x->hi, "cells", xc);
    json_t *ver = s_verification (ro, x);
    if (ver)
        json_object_set_new (dj, "verification", ver);
    return dj;
}

/* The fleet's cells: the mean per drive of the sums.  Can't fail. */
static json_t *
s_fleet_cells (json_t *cells, const fleet_sums_t *f)
{
    json_t *fleet = json_array ();
    size_t i;
    json_t *c;
    json_array_foreach (cells, i, c) {
        json_t *o = json_deep_copy (c);
        json_object_set_new (o, "drives", json_integer (f->n ? f->n[i] : 0));
        if (f->n && f->n[i]) {
            json_object_set_new (o, "iops", json_real (f->iops[i] / f->n[i]));
            json_object_set_new (o, "bw", json_real (f->bw[i] / f->n[i]));
            json_object_set_new (o, "mean", json_real (f->mean[i] / f->n[i]));
        }
        json_array_append_new (fleet, o);
    }
    return fleet;
}

/* The matrix's rows (block sizes) and columns (mixes), each in the order
   of the plan.  Can't fail. */
static json_t *
s_matrix_json (json_t *cells)
{
    json_t *mrows = json_array (), *mcols = json_array ();
    size_t i;
    json_t *c;
    json_array_foreach (cells, i, c) {
        json_t *bs = json_object_get (c, "bs"), *col = json_object_get (c, "column");
        bool have = false;
        size_t k;
        json_t *x;
        json_array_foreach (mrows, k, x)
            have |= json_equal (x, bs);
        if (!have)
            json_array_append (mrows, bs);
        have = false;
        json_array_foreach (mcols, k, x)
            have |= json_equal (x, col);
        if (!have)
            json_array_append (mcols, col);
    }
    return json_pack ("{s:o, s:o}", "rows", mrows, "columns", mcols);
}

/* The report of rounds ro (taken) and curves wsat (taken) from the
   matrix read: the drives, the matrix, the fleet.  Can't fail. */
static json_t *
s_rounds_json (store_t *store, int64_t run, const matrix_t *m, json_t *ro, json_t *wsat)
{
    json_t *q = json_pack ("{s:s, s:I}", "template", "pts", "run", (json_int_t) run);
    s_run_head (store, run, q);
    json_object_set_new (q, "rounds", ro);
    json_t *drives = json_array ();
    int nsteady = 0;
    for (size_t k = 0; k < m->nd; k++)
        nsteady += m->d[k].steady;
    /* The fleet's cells: the mean per drive, over the steady drives when
       some are. */
    size_t ncells = json_array_size (m->cells);
    fleet_sums_t f = { .iops = calloc (ncells + 1, sizeof *f.iops),
                       .bw = calloc (ncells + 1, sizeof *f.bw),
                       .mean = calloc (ncells + 1, sizeof *f.mean),
                       .n = calloc (ncells + 1, sizeof *f.n) };
    for (size_t k = 0; k < m->nd; k++)
        json_array_append_new (drives, s_drive_json (m, &m->d[k], ro, nsteady, &f));
    json_t *fleet = s_fleet_cells (m->cells, &f);
    free (f.iops);
    free (f.bw);
    free (f.mean);
    free (f.n);
    json_object_set_new (q, "write_saturation", wsat);
    json_object_set_new (q, "drives", drives);
    json_object_set_new (q, "matrix", s_matrix_json (m->cells));
    json_object_set_new (q, "fleet", json_pack ("{s:s, s:o}", "of", nsteady
        ? "the steady drives: the mean per drive over each one's steady window"
        : "every drive (none is steady): the mean per drive over each one's last window",
        "cells", fleet));
    return q;
}

/* The matrix of a run with rounds ro: its cells, drives, windows and
   figures.  Returns 0, -1 on a database error (logged), or -2 when out
   of memory. */
static int
s_read_matrix (store_t *store, int64_t run, json_t *ro, matrix_t *m)
{
    int rounds_run = (int) json_integer_value (json_object_get (ro, "rounds_run"));
    json_t *rule = json_object_get (ro, "steady_state");
    int window = rule ? (int) json_integer_value (json_object_get (rule, "window")) : rounds_run;
    if (window < 1)
        window = 1;
    int rc = s_read_cells (store, run, m);
    /* Each drive's window, from what rounds.c stored (or, without a rule,
       every round run). */
    if (rc == 0)
        rc = s_read_drives (store, run, m, rounds_run, window);
    if (rc == 0) {
        s_steady_windows (ro, m, window);
        rc = s_read_figures (store, run, m);
    }
    return rc;
}

json_t *
pts_json (store_t *store, int64_t run, char *err, size_t errlen)
{
    bool unsteady;
    json_t *ro = rounds_steady_report (store, run, &unsteady, err, errlen);
    if (!ro)
        return NULL;
    json_t *wsat = s_wsat_json (store, run, err, errlen);
    if (!wsat) {
        json_decref (ro);
        return NULL;
    }
    if (json_is_null (ro) && json_array_size (wsat)) {
        /* A write-saturation run (plans/pts-wsat.fio): its curves alone. */
        json_t *q = json_pack ("{s:s, s:I, s:o, s:o}", "template", "pts", "run", (json_int_t) run,
                               "rounds", ro, "write_saturation", wsat);
        s_run_head (store, run, q);
        return q;
    }
    if (json_is_null (ro)) {
        json_decref (wsat);
        snprintf (err, errlen, "run %lld has no rounds and no write saturation step: --template "
                  "pts reports a plan with [iofleet] rounds= (and steady_state=), such as "
                  "plans/pts-iops.fio, or a size-bound random-write step, such as "
                  "plans/pts-wsat.fio; use iofleet report %lld for this run", (long long) run,
                  (long long) run);
        return NULL;
    }
    matrix_t m = { .cells = json_array (), .maxstep = -1 };
    int rc = s_read_matrix (store, run, ro, &m);
    json_t *q = NULL;
    if (rc == 0)
        q = s_rounds_json (store, run, &m, ro, wsat);
    json_decref (m.cells);
    s_free_drives (m.d, m.nd);
    if (q)
        return q;
    json_decref (ro);
    json_decref (wsat);
    if (rc == -2)
        snprintf (err, errlen, "out of memory");
    else
        snprintf (err, errlen, "database error reading the rounds of run %lld; see the "
                  "controller's log", (long long) run);
    return NULL;
}
