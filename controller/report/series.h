/*  series.h: the one place per-interval figures come from.

    The live series of the step in hand (series_t: the fleet_intervals
    rows, 011_fleet_intervals.sql, kept as snapshots are stored; the live
    status reads it) and the series of a stored step (series_scan: the
    report's fleet and --where series, the groups' series; series_rows:
    the fleet's, read back).  Both merge an interval the same way: ops and
    bytes summed, completion-latency histograms merged, and each agent
    counted once with its span, however many targets it has.  An
    interval's IOPS and bandwidth are its ops and bytes over the mean span
    of its agents (series_interval_secs).
*/
#ifndef IOF_SERIES_H
#define IOF_SERIES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "direction.h"
#include "buckets.h"
#include "histogram.h"
#include "message.h"
#include "store.h"

typedef struct series series_t;
/* One target's part of the step so far: ops, bytes, and its completion
   latency per direction as buckets.h's slots at BUCKETS_TARGET, with the
   exact count and sum (ns). */
typedef struct {
    uint64_t ops[DIR_COUNT], bytes[DIR_COUNT], count[DIR_COUNT], sum[DIR_COUNT];
    uint64_t slots[DIR_COUNT][BUCKETS_SLOTS (BUCKETS_TARGET)];
} series_target_t;
/* An agent of the step in hand: its name, its targets' labels (a JSON
   array of strings, as step_agents.targets holds them) and figures. */
typedef struct {
    char name[MSG_NAME_MAX + 1];    /* "": not named (no READY yet) */
    json_t *labels;
    series_target_t *t;             /* n of them, room for cap */
    uint32_t n, cap;
} series_who_t;
/* The step in hand so far, every snapshot stored since the step began (or
   since a commit failed, or the controller started): ops, bytes and the
   completion-latency histogram per direction, fleet-wide, and per agent
   (the runner's part index) and target (READY's index) the same at
   BUCKETS_TARGET, for /metrics (metrics.h), with the names they go by:
   kept until the next step begins, past the run's end. */
typedef struct {
    int64_t run;                    /* -1: none yet */
    int step;
    char name[512];                 /* the step's (runner_step_name) */
    uint64_t ops[DIR_COUNT], bytes[DIR_COUNT];
    histogram_t hist[DIR_COUNT];
    series_who_t *who;              /* nwho of them, room for capwho */
    int nwho, capwho;
} series_total_t;
typedef struct {
    uint32_t agents;                /* agents whose snapshot is in */
    uint64_t t_start, t_end, span_ns;
    uint64_t ops[DIR_COUNT], bytes[DIR_COUNT];
    histogram_t hist[DIR_COUNT];    /* completion latency, merged */
    double *who_ops;                /* per agent (runner's part index), -1: none */
    bool who_known;                 /* false: who_ops unknown (reloaded from its
                                       row, or no memory for them) */
} series_interval_t;

/* ---- The step in hand (the event loop's) ---- */
series_t *series_new (void);
void series_destroy (series_t **self_p);
/* A new step of run (nwho agents): forgets everything held. */
void series_reset (series_t *self, int64_t run, int step, int nwho);
/* Names the step in hand (its name, as runner_step_name makes it), and agent
   who of it (its name, and its targets' labels: a JSON array of strings,
   not taken over).  Can't fail (out of memory: it goes unnamed). */
void series_name_step (series_t *self, const char *name);
void series_name_agent (series_t *self, int who, const char *name, json_t *labels);
/* Forgets what is held, keeping the step: a commit failed, the rows are
   what was committed. */
void series_forget (series_t *self);
/* Adds a stored snapshot of agent who (its histograms checked already).
   Returns 0, or -1 on a database error (counted by the store). */
int series_add (series_t *self, store_t *store, int who, const Iofleet__Snapshot *s);
/* Writes the intervals changed since the last call (the store's commit
   hook calls it).  Returns 0 or -1. */
int series_flush (series_t *self, store_t *store);
/* The step in hand's totals.  Can't fail. */
const series_total_t *series_total (const series_t *self);
/* Keeps the totals' histograms from now on, and the targets' figures
   too when targets (off by default: what they cost is a sample's
   histogram read into a list before it is added).  Can't fail. */
void series_keep_total (series_t *self, bool targets);
/* Interval seq of the step in hand, or NULL if no agent delivered it. */
const series_interval_t *series_get (series_t *self, store_t *store, uint32_t seq);

/* ---- Any interval ---- */
/* The seconds an interval's ops and bytes are divided by to make its IOPS
   and bandwidth: the mean span of its agents; 0 when it has none.
   Can't fail. */
double series_interval_secs (const series_interval_t *iv);
/* The forms of an interval in JSON: the report's (seq, start_ns, end_ns,
   agents; per direction reported ops, bytes, iops, histogram_count, p50,
   p99; iops, bw over all directions) and the groups' (seq; per direction
   ops, iops, p50, p99; iops, bw). */
typedef enum { SERIES_JSON_REPORT, SERIES_JSON_GROUP } series_form_t;
/* Interval iv as seq in form.  NULL when out of memory. */
json_t *series_interval_json (const series_interval_t *iv, uint32_t seq, series_form_t form);
/* Adds a stored histogram (blob of len bytes; none when NULL or len <= 0)
   to into.  Returns 0, or -1 when it does not decode. */
int series_blob_add (histogram_t *into, const void *blob, int len);

/* ---- A stored step (the read path) ---- */
/* Which group a stored snapshot row (agent's target, an index into its
   step_agents.targets) counts for: 0..ngroups-1, or -1: left out. */
typedef int (series_pick_fn) (void *arg, const char *agent, int target);
/* The step's intervals from its stored snapshots, merged per group:
   out[g] gets a new array of group g's intervals in seq order (those
   where it has a row), in form.  pick NULL: every row counts for group 0
   (ngroups 1); ngroups 0: nothing to do.  Returns 0, or -1 when out of
   memory or on a database error (out[] then hold what was merged). */
int series_scan (store_t *store, int64_t run, int step, series_pick_fn *pick, void *arg,
                 int ngroups, series_form_t form, json_t **out);
/* Appends the fleet's intervals of the step from its fleet_intervals rows
   to out, in the report's form.  Returns the number of rows (0 for a run
   stored before 011_fleet_intervals: series_scan makes them), or -1 on a
   database error (logged; out then holds the rows read before it). */
int series_rows (store_t *store, int64_t run, int step, json_t *out);

#endif
