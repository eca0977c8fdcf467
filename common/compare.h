/*  compare.h: two run reports (report JSON, controller/report.c) side by
    side, per step and group.  Rows: {"step", "group", "metric" (iops, bw,
    p50, p99, p99.9), "a", "b", "delta_pct", "significant" (true, false,
    or null without a noise estimate)}.  iops and bw are totals over every
    direction (trims too); percentiles are the busier of reads and writes
    (trims are not offered).
*/
#ifndef IOF_COMPARE_H
#define IOF_COMPARE_H

#include <jansson.h>
#include <stdbool.h>

/* Rows for the steps both reports have (matched by name): the fleet and
   every group of report a found in b.  Can't fail (empty on no match). */
json_t *compare_reports (json_t *a, json_t *b);

/* The same rows for two groups of one run (report made with --by key):
   value va as A, vb as B, per step. */
json_t *compare_groups (json_t *rep, const char *key, const char *va, const char *vb);

/* Is row a significant change for the worse beyond fail_pct percent
   (IOPS and bw down, latency up)?  fail_pct < 0: never. */
bool compare_is_regression (json_t *row, double fail_pct);

#endif
