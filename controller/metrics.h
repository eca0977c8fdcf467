/*  metrics.h: the controller's figures in the Prometheus text exposition
    format (version 0.0.4), rendered on the event loop (which owns them)
    and served by http.h's thread from the last rendering:

      iofleet_agents{state="connected"|"disconnected"}   gauge: the agents
          that said HELLO since the controller started, by connection;
      iofleet_ingest_{messages,bytes,snapshots,rows,commits}_total
          counters, and the histograms iofleet_ingest_lag_seconds (a
          snapshot's interval end to its commit) and iofleet_commit_seconds
          (a tick's commit): what `iofleet stats` shows;
      iofleet_run_active{run, plan} 1 and iofleet_step_active{run, step,
          name} 1: the run and the step in hand (no series when idle);
      iofleet_step_ops_total, iofleet_step_bytes_total{run, step, name,
          direction} counters, and iofleet_step_latency_seconds{run, step,
          name, direction} a histogram (_bucket, _sum, _count) of the
          completion latency: the step in hand's stored snapshots, fleet-
          wide, from when it began (or the controller started: a restart
          is a counter reset to Prometheus).  They stay after the step
          ends, until the next step begins.

    The histogram's buckets are unions of iofleet's own (histogram.h): 8
    per power of two from 2^10 ns (about 1 us) to 2^36 ns (about 69 s),
    each at most 12.5% of its lower edge wide.  Each le is an edge less
    1 ns, in seconds: the bucket counts exactly the samples of at most le,
    so summing buckets over series and histogram_quantile() merge exactly;
    a quantile's error is the width of the bucket it falls in.
*/
#ifndef IOF_METRICS_H
#define IOF_METRICS_H

#include <stddef.h>

#include "controller.h"
#include "histogram.h"

#define METRICS_OCTAVE_SPLIT  8      /* buckets per power of two */
#define METRICS_LOW_BITS      10     /* the first edge: 2^10 ns */
#define METRICS_HIGH_BITS     36     /* the last edge: 2^36 ns */

/* The exposition text of ctl's figures now (malloc'd, *len bytes), or
   NULL when out of memory. */
char *metrics_render (ctl_t *ctl, size_t *len);

/* A histogram's buckets as the exposition's lines of name (with the
   label text labels, "" for none) into f: _bucket per edge and +Inf,
   _sum, _count.  Can't fail (f's errors are f's). */
void metrics_histogram (FILE *f, const char *name, const char *labels, const histogram_t *h);

#endif
