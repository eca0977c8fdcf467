/*  interval.h: a worker's measurement intervals.
*/
#ifndef IOF_INTERVAL_H
#define IOF_INTERVAL_H

#include "job_state.h"

/* The end of interval k on the monotonic clock (the last one ends at
   measure_end).  Can't fail. */
static inline uint64_t
interval_end (const iojob_t *j, uint32_t k)
{
    uint64_t e = j->measure_start + (uint64_t) (k + 1) * j->interval_ns;
    return e < j->measure_end ? e : j->measure_end;
}

/* Publishes the worker's current interval k and moves to k+1, waiting (rarely)
   for the main thread to have collected k-1 so slot (k+1)%2 is free. */
void interval_publish (worker_t *w, uint32_t *k);

/* Moves the worker's measurement on to the clock `now`: starts measuring at
   measure_start (restarting the rate quota there when a ramp ran, as fio's
   reset_all_stats does) and publishes the intervals `now` has passed.
   Can't fail. */
void interval_advance (worker_t *w, uint64_t now);

#endif
