/*  interval.c: a worker's measurement intervals: when each ends, publishing
    it to the main thread, and moving on with the clock (see job.h for the
    double buffer).
*/
#define _GNU_SOURCE
#include "interval.h"
#include "job_state.h"
#include "util.h"

#include <string.h>

/* Publishes the worker's current interval k and moves to k+1, waiting (rarely)
   for the main thread to have collected k-1 so slot (k+1)%2 is free. */
void
interval_publish (worker_t *w, uint32_t *k)
{
    atomic_store_explicit (&w->published, *k + 1, memory_order_release);
    (*k)++;
    while (atomic_load_explicit (&w->consumed, memory_order_acquire) + 1 < *k
           && !atomic_load_explicit (&w->job->stop, memory_order_relaxed))
        sleep_ns (100000);
}

/* See interval.h.  Can't fail. */
void
interval_advance (worker_t *w, uint64_t now)
{
    iojob_t *j = w->job;
    if (!w->measuring && now >= j->measure_start) {
        w->measuring = true;
        if (j->ramp_ns) {
            w->rate_epoch = now;
            memset (w->rate_bytes, 0, sizeof w->rate_bytes);
            memset (w->rate_next, 0, sizeof w->rate_next);
            w->think_last = w->think_last > w->completed ? w->think_last - w->completed : 0;
            w->completed = 0;
        }
    }
    while (w->measuring && now >= interval_end (j, w->k) && interval_end (j, w->k) < j->measure_end)
        interval_publish (w, &w->k);
}
