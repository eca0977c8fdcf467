/*  history.h: a metric across runs (iofleet history). */
#ifndef IOF_HISTORY_H
#define IOF_HISTORY_H

#include <jansson.h>
#include <stdbool.h>

#include "match.h"
#include "store.h"

/* History: one row per run (and group) of a metric of the steps named
   like req "step" (a glob), see admin.c; "unit" says the metric's
   (compare_metric_unit).  NULL with err filled (a request that is not
   one, a database error: "database error ...; see the controller's
   log"). */
json_t *history_json (store_t *store, json_t *req, char *err, size_t errlen);

/* The figures history draws from one step of a run: an array of sets,
   each {"value": the group's value ("fleet" without by and conds), and
   per direction the group's figures (ops, iops, bw, errors, percentiles,
   lat_ns, ...)}, grouped by `by` among the targets that satisfy conds.
   NULL on an error: err filled for a `by` that is not one, else empty (a
   database error, logged). */
json_t *history_sets_step (store_t *store, int64_t run, int idx, const char *by,
                           const match_cond_t *conds, int nconds, char *err, size_t errlen);

/* The parts of history_sets_step, for a caller that groups one step by
   several keys: the step's agents and targets with their figures (NULL on
   a database error), then the sets of `by` among them (selected: only
   the targets groups_select kept); NULL with err as history_sets_step. */
json_t *history_sets_step_agents (store_t *store, int64_t run, int idx);
json_t *history_sets_group (store_t *store, int64_t run, int idx, json_t *sj, const char *by,
                            bool selected, char *err, size_t errlen);

/* history_index.c: the figures history draws, stored once per run, step
   and indexed key ("" for the fleet, and HISTORY_INDEX_KEYS) by the
   controller while it is idle, for runs that ended complete or partial.
   Reads a step's sets when the index holds them: returns 1 with *sets,
   0 when it does not (a key not indexed, a run not indexed yet), -1 on
   a database error. */
int history_index_read (store_t *store, int64_t run, int idx, const char *by, json_t **sets);

#endif
