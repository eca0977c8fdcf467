/*  compare.h (controller): two run reports (report JSON, controller/report/report.c) side by
    side, per step and group (iofleet compare, and the controller's check
    of a scheduled run against its baseline).

    compare_run's result: {"a": SIDE, "b": SIDE, "figures": "per_member" or
    "sum", "steps": [[A step, B step], ...] or null (by name), "forced",
    "rows": [ROW...], "skipped": [{"step", "group"?, "reason"}...]}.
    SIDE: {"run", "plan", "plan_version", "status", "message", "labels",
    "origin", "where"?}.
    ROW: {"step" (A's), "group", "metric", "a", "b", "delta_pct",
    "significant" (true, false, or null: not judged, see compare.c),
    "significance_note" (only when null: why, such as "too few intervals
    to judge"),
    "a_plan", "a_step", "b_plan", "b_step" ("NAME vN" and the step each
    side's figure is of), "a_agents", "a_targets", "b_agents",
    "b_targets" (the members behind each figure)}.

    Metrics: the fleet of two runs compares its totals: "iops", "bw" (every
    direction, trims too).  A group (--by, or --a/--b) compares per
    member: "iops_per_target", "iops_per_agent", "bw_per_target",
    "bw_per_agent" (groups of different sizes are not compared by their
    sums), or its totals with sum.  Then "p50", "p99", "p99.9" from the
    merged histograms, the busier of reads and writes (trims are not
    offered).
*/
#ifndef IOF_COMPARE_H
#define IOF_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    bool sum;               /* groups by their totals, not per member (--sum) */
    bool force;             /* different plans, or a failed run: compare anyway */
    json_t *steps;          /* [[A step, B step], ...] (--steps), NULL: by name */
    bool groups;            /* a and b are two groups of one run (--a/--b):
                               their fleets are the groups' members */
    const char *label;      /* the group column of the fleet rows (NULL: "fleet") */
} compare_opts_t;

/* Can a be compared with b?  Refused: a run that is not finished, one
   that measured nothing, one that failed (unless force), runs of
   different plans or plan versions (unless o->steps maps their steps, or
   force), and --steps naming a step a run does not have.  Returns 0, or
   -1 with err naming both runs and the way out.  Can't fail otherwise. */
int compare_check (json_t *a, json_t *b, const compare_opts_t *o, char *err, size_t errlen);

/* The comparison (see above): new reference; NULL only when out of
   memory.  Steps or groups one side did not measure are "skipped" with
   the reason, never rows. */
json_t *compare_run (json_t *a, json_t *b, const compare_opts_t *o);

/* SIDE of a report.  New reference. */
json_t *compare_side (json_t *rep);

/* Is row a significant change for the worse beyond fail_pct percent
   (IOPS and bw down, latency up)?  fail_pct < 0: never. */
bool compare_is_regression (json_t *row, double fail_pct);

/* Is a row's metric a latency (lower is better)?  Can't fail. */
bool compare_is_latency (const char *metric);

/* The unit of a metric (a compare row's or history's): "ns" (latencies:
   percentiles, mean, min, max, stddev), "bytes/s" (bw...), "count" (ops,
   errors) or "iops" (iops...), for those who render it.  Can't fail. */
const char *compare_metric_unit (const char *metric);

#endif
