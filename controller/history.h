/*  history.h: a metric across runs (iofleet history). */
#ifndef IOF_HISTORY_H
#define IOF_HISTORY_H

#include <jansson.h>

#include "store.h"

/* History: one row per run (and group) of a metric of the steps named
   like req "step" (a glob), see admin.c; "unit" says the metric's
   (compare_metric_unit).  NULL with err filled (a request that is not
   one, a database error: "database error ...; see the controller's
   log"). */
json_t *history_json (store_t *store, json_t *req, char *err, size_t errlen);

#endif
