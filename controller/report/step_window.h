/*  step_window.h: a step's fleet time series, and the common window: the
    intervals every agent that measured took part in.
*/
#ifndef IOF_STEP_WINDOW_H
#define IOF_STEP_WINDOW_H

#include <jansson.h>
#include <stdint.h>

#include "store.h"

/* The fleet time series of a step: interval k merged over every agent
   (ops and bytes summed, clat histograms merged), and the common window:
   the intervals every agent that measured took part in.  Adds "intervals",
   "window" and "outside_window" to step.  agents: the step's agents
   ({agent, status, message, snapshots} each).  sel (report_selection_keys;
   NULL: all): only the selected targets count.  Returns 0, or -1 on a database
   error (logged) or when out of memory; step then has none of them. */
int step_window_add (store_t *store, int64_t run, int step, json_t *step_json, json_t *agents,
                     json_t *sel);

#endif
