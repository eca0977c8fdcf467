/*  history_sets.h: the figures history draws from one step of a run.  */
#ifndef IOF_HISTORY_SETS_H
#define IOF_HISTORY_SETS_H

#include "match.h"
#include "store.h"

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

#endif
