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

/* history_index.c: the figures history draws, stored once per run, step
   and indexed key ("" for the fleet, and HISTORY_INDEX_KEYS) by the
   controller while it is idle, for runs that ended complete or partial.
   Reads a step's sets when the index holds them: returns 1 with *sets,
   0 when it does not (a key not indexed, a run not indexed yet), -1 on
   a database error. */
int history_index_read (store_t *store, int64_t run, int idx, const char *by, json_t **sets);

#endif
