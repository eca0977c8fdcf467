/*  metrics.h: the controller's figures in the Prometheus text exposition
    format (version 0.0.4), collected on the event loop (which owns them)
    when a scrape asks (http.h), and written out on the HTTP thread:

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
          name, direction} a histogram of the completion latency at
          BUCKETS_FLEET (8 per power of two): the step in hand's stored
          snapshots, fleet-wide, from when it began (or the controller
          started: a restart is a counter reset to Prometheus).  They stay
          after the step ends, until the next step begins;
      iofleet_target_ops_total, iofleet_target_bytes_total{agent, target,
          direction} counters, and iofleet_target_latency_seconds{agent,
          target, direction} a histogram at BUCKETS_TARGET (1 per power of
          two): the same per agent and target (its label as the report
          names it), for the directions it moved data in.  No run or step
          label, so that a fleet's series stay the same from step to step
          (a new step is a counter reset); iofleet_step_active says which
          step they are of.  --http-targets counters leaves the histogram
          out, off all three.

    The buckets are exact unions of iofleet's own (buckets.h): summing
    them over any set of series and histogram_quantile() merge exactly.
    What the series cost is in docs/benchmarks.md (/metrics at 1,000 agents).
*/
#ifndef IOF_METRICS_H
#define IOF_METRICS_H

#include <stddef.h>
#include <stdio.h>

#include "controller.h"

typedef struct metrics_snap metrics_snap_t;

/* What each agent and target gets (--http-targets): all three families,
   the two counters, or none. */
typedef enum { METRICS_TARGETS_HISTOGRAM, METRICS_TARGETS_COUNTERS, METRICS_TARGETS_OFF }
    metrics_targets_t;
/* "histogram", "counters", "off" as *out.  Returns 0, or -1: none of them. */
int metrics_targets_parse (const char *s, metrics_targets_t *out);
const char *metrics_targets_name (metrics_targets_t t);

/* ctl's figures now, copied (on the loop: what a scrape writes out from
   another thread), the targets' as targets says.  NULL when out of
   memory. */
metrics_snap_t *metrics_collect (ctl_t *ctl, metrics_targets_t targets);

/* The exposition text of snap into f.  Returns 0, or -1 when f failed. */
int metrics_write (const metrics_snap_t *snap, FILE *f);

/* A label's value into f, quoted and escaped as the text format wants
   (backslash, double quote, newline).  Can't fail. */
void metrics_label_value (FILE *f, const char *s);

/* Frees snap.  Can't fail. */
void metrics_snap_free (metrics_snap_t **snap_p);

#endif
