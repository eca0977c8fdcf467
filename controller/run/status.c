/*  status.c: a run's status (iofleet status), and while it runs, the
    live figures of its step in hand: the newest interval every running
    agent delivered, and the agents that stand out in it.
*/
#include "runner.h"
#include "histogram.h"
#include "outliers.h"
#include "util.h"
#include "runs.h"
#include "status.h"
#include "series.h"
#include "step_rows.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

/* The step's newest interval every running agent has delivered: fleet
   IOPS and p99 from the merged histograms, and the agents whose IOPS
   stand out in it (as the report's outliers).  Adds "last_interval" to o;
   nothing before the first interval.  Can't fail. */
/* A step's progress by bytes, per drive: of the targets whose READY
   planned how many bytes they move (a size-bound step: a precondition, a
   purge, a write saturation), how many are done, the bytes moved of those
   planned, and the slowest drive.  When the step has no planned time,
   "progress" and "left_s" (from the rate so far) come from the bytes.
   Can't fail. */
static void
add_drive_progress (ctl_t *ctl, json_t *o, double elapsed, double planned_s)
{
    runner_t *r = ctl->runner;
    uint64_t planned = 0, moved = 0;
    int ndrives = 0, ndone = 0;
    double slow = 2;
    const part_t *sp = NULL;
    uint32_t st = 0;
    for (int i = 0; i < r->nparts; i++) {
        const part_t *p = &r->parts[i];
        if (!p->planned || !p->moved || p->st == P_REFUSED || p->st == P_PREPARING)
            continue;
        for (uint32_t t = 0; t < p->ntargets; t++) {
            if (!p->planned[t])
                continue;
            uint64_t m = p->moved[t] < p->planned[t] ? p->moved[t] : p->planned[t];
            planned += p->planned[t];
            moved += m;
            ndrives++;
            double f = (double) m / (double) p->planned[t];
            ndone += m == p->planned[t];
            if (f < slow) {
                slow = f;
                sp = p;
                st = t;
            }
        }
    }
    if (!ndrives)
        return;
    double frac = (double) moved / (double) planned;
    json_t *slowest = json_pack ("{s:s, s:f}", "agent", sp->name, "fraction", slow);
    json_t *tl = step_rows_agent_targets (ctl->store, r->run, r->cur, (int64_t) sp->agent_id);
    json_t *name = json_array_get (tl, st);
    if (json_is_string (name))
        json_object_set (slowest, "target", name);
    json_decref (tl);
    json_object_set_new (o, "drives_progress", json_pack ("{s:i, s:i, s:I, s:I, s:f, s:o}",
        "drives", ndrives, "done", ndone, "planned_bytes", (json_int_t) planned,
        "moved_bytes", (json_int_t) moved, "fraction", frac, "slowest", slowest));
    if (planned_s <= 0 && r->phase == R_RUNNING) {
        json_object_set_new (o, "progress", json_real (frac));
        if (frac > 0)
            json_object_set_new (o, "left_s", json_real (elapsed * (1 - frac) / frac));
    }
}

static void
add_live (ctl_t *ctl, json_t *o)
{
    runner_t *r = ctl->runner;
    int64_t seq = -1;
    for (int i = 0; i < r->nparts; i++) {
        const part_t *p = &r->parts[i];
        if ((p->st == P_RUNNING || p->st == P_DONE_WAIT) && p->contig > 0
            && (seq < 0 || (int64_t) p->contig - 1 < seq))
            seq = (int64_t) p->contig - 1;
    }
    if (seq < 0)
        return;
    const series_interval_t *iv = series_get (r->series, ctl->store, (uint32_t) seq);
    /* IOPS over the series' one divisor, as the report's intervals. */
    double secs = iv ? series_interval_secs (iv) : 0;
    if (secs <= 0)
        return;
    uint64_t total = 0;
    static histogram_t fleet;
    histogram_clear (&fleet);
    for (int d = 0; d < DIR_COUNT; d++) {
        total += iv->ops[d];
        histogram_merge (&fleet, &iv->hist[d]);
    }
    json_t *li = json_pack ("{s:I, s:f, s:I}", "seq", (json_int_t) seq,
                            "iops", (double) total / secs, "ops", (json_int_t) total);
    if (fleet.count)
        json_object_set_new (li, "p99", json_integer ((json_int_t) histogram_percentile (&fleet, 99.0)));
    /* Each agent's ops of the interval, for its outliers. */
    static double *ops;
    static int *idx, cap;
    if (r->nparts > cap) {
        double *o = realloc (ops, (size_t) r->nparts * sizeof *o);
        if (o)
            ops = o;
        int *x = realloc (idx, (size_t) r->nparts * sizeof *x);
        if (x)
            idx = x;
        if (o && x)
            cap = r->nparts;
    }
    int n = 0;
    for (int i = 0; iv->who_known && i < r->nparts && i < cap; i++)
        if (iv->who_ops[i] >= 0) {
            idx[n] = i;
            ops[n++] = iv->who_ops[i];
        }
    json_t *outl = json_array ();
    double median;
    double *score = malloc ((size_t) (n ? n : 1) * sizeof *score);
    bool *flagged = malloc ((size_t) (n ? n : 1) * sizeof *flagged);
    if (score && flagged && n >= 3 && outliers_find (ops, n, &median, score, flagged) > 0)
        for (int i = 0; i < n; i++) {
            part_t *p = flagged[i] ? &r->parts[idx[i]] : NULL;
            if (p)
                json_array_append_new (outl, json_pack ("{s:s, s:f, s:f, s:f}", "agent", p->name,
                    "iops", ops[i] / secs, "median_iops", median / secs,
                    "delta_pct", median > 0 ? 100.0 * (ops[i] - median) / median : 0.0));
        }
    free (score);
    free (flagged);
    json_object_set_new (li, "outliers", outl);
    json_object_set_new (o, "last_interval", li);
}

json_t *
status_run (ctl_t *ctl, int64_t run, char *err, size_t errlen)
{
    runner_t *r = ctl->runner;
    json_t *o = runs_summary (ctl->store, run, err, errlen);
    if (!o)
        return NULL;
    if (r->phase != R_IDLE && r->run == run) {
        char name[512];
        json_object_set_new (o, "step", json_integer (r->cur));
        json_object_set_new (o, "steps", json_integer (r->nsteps));
        json_object_set_new (o, "step_name", json_string (runner_step_name (r, r->cur, name, sizeof name)));
        /* A round's step (rounds.h): which round, of at most how many. */
        if (runner_round (r, r->cur)) {
            json_object_set_new (o, "round", json_integer (runner_round (r, r->cur)));
            json_object_set_new (o, "rounds_max", json_integer (r->max_rounds));
        }
        /* results: the step ended; its results are being computed. */
        json_object_set_new (o, "phase", json_string (r->phase == R_PREPARING ? "preparing"
                                                      : r->phase == R_RESULTS ? "results"
                                                                              : "running"));
        double elapsed = 0;
        uint64_t now = clock_real_ns ();
        if (r->phase == R_RUNNING && now > r->start_at)
            elapsed = (double) (now - r->start_at) / 1e9;
        double planned = (double) runner_step_planned_ns (r, r->cur) / 1e9;
        json_object_set_new (o, "elapsed_s", json_real (elapsed));
        json_object_set_new (o, "planned_s", json_real (planned));
        /* The step's progress by its planned time: what watch shows. */
        if (r->phase == R_RUNNING && planned > 0) {
            json_object_set_new (o, "progress", json_real (elapsed < planned ? elapsed / planned
                                                                              : 1));
            json_object_set_new (o, "left_s", json_real (elapsed < planned ? planned - elapsed
                                                                            : 0));
        }
        add_drive_progress (ctl, o, elapsed, planned);
        json_t *agents = json_object ();
        for (int i = 0; i < r->nparts; i++) {
            const char *s = runner_pstate_names[r->parts[i].st];
            json_t *c = json_object_get (agents, s);
            json_object_set_new (agents, s, json_integer (c ? json_integer_value (c) + 1 : 1));
        }
        json_object_set_new (o, "agents", agents);
        if (r->phase == R_RUNNING)
            add_live (ctl, o);
    }
    /* While the database cannot be written the run in hand holds (and a
       queued one waits behind it): said with what it needs. */
    const char *st = json_string_value (json_object_get (o, "status"));
    json_t *held = st && (!strcmp (st, "running") || !strcmp (st, "queued"))
                   ? store_held_json (ctl->store) : NULL;
    if (held)
        json_object_set_new (o, "held", held);
    return o;
}
