/*  report.h: the report of a run (the read path), and the pieces of it
    that fio_export.c and history.c use too.
*/
#ifndef IOF_REPORT_H
#define IOF_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "json_text.h"
#include "match.h"
#include "store.h"

/* The report of a run as JSON, or NULL with err filled (unknown run, a
   key that is not one, a selection that matches nothing, a database
   error: "database error reading run N; see the controller's log").  by:
   group key or NULL; where: JSON list of "KEY=GLOB[,KEY=GLOB]" conditions
   (NULL or empty: all) that select the targets every figure is made of;
   where_flag: the option they came from, for err (NULL: "--where"). */
json_t *report_json (store_t *store, int64_t run, const char *by, json_t *where,
                     const char *where_flag, char *err, size_t errlen);
/* One step of run as the live page draws it while it runs: {"index",
   "name", "start_at"?, "intervals": the fleet's intervals so far, in the
   report's form (series_rows)}, or NULL with err (no such step, a
   database error).  A stored row per interval: cheap at any fleet size,
   where the report so far is not. */
json_t *report_step_intervals (store_t *store, int64_t run, int step, char *err, size_t errlen);
/* The same written as JSON text into out (after what it holds), built
   one agent at a time so that the report's size costs text, not a tree:
   the run's keys ("verdict" first), then "steps".  histograms: as
   report_add_histograms.  An out made by json_text_init_gz (a reply)
   turns gzip past GZ_AFTER bytes.  Returns 0, or -1 with err filled (as
   report_json's, or out of memory; out then holds part of a report). */
int report_json_text (store_t *store, int64_t run, const char *by, json_t *where,
                 const char *where_flag, bool histograms, json_text_t *out, char *err,
                 size_t errlen);
/* Adds to each step's fleet read and write its merged completion-latency
   histogram, 8 bins an octave: "histogram": [[low_ns, high_ns, count]...]
   (nonzero bins); a step without one gets none.  Returns 0, or -1 on a
   database error (logged; the steps from there on have none). */
int report_add_histograms (store_t *store, int64_t run, json_t *rep);

/* The keys of the targets a step filtered by groups_select keeps:
   "AGENT\x1fNAME" as results name them and "AGENT\x1f#INDEX" as
   snapshots do.  NULL on a database error (logged); empty when out of
   memory. */
json_t *report_selection_keys (store_t *store, int64_t run, int step, json_t *s);
/* The fleet's merged figures of a step: {"read": {...}, "write": {...}},
   and "trim" when the step trimmed.  NULL on a database error (logged). */
json_t *report_fleet (store_t *store, int64_t run, int idx, const double *extra, int nextra);
/* Parses a where list (JSON list of "KEY=GLOB" texts) into conds[*n].
   Returns 0, or -1 with err naming flag. */
int report_where_parse (json_t *where, const char *flag, match_cond_t *conds, int *n,
                        char *err, size_t errlen);
/* err: where matched nothing of run (values: the first key's values the
   run has).  Can't fail. */
void report_where_nothing (json_t *where, const char *flag, int64_t run, const match_cond_t *c0,
                           json_t *values, char *err, size_t errlen);

#endif
