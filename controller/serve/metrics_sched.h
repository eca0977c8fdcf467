/*  metrics_schedules.h: each schedule's latest figures for /metrics, read
    on the HTTP thread from a read-only connection (store_open_reader),
    off the event loop:

      iofleet_schedule_next_fire_timestamp_seconds{schedule, plan}  when it
          falls due next (a schedule the controller did not fire is
          overdue: time() past it);
      iofleet_schedule_last_fire_timestamp_seconds{schedule, plan}  the
          cron time of its latest fire, and
      iofleet_schedule_last_fire_skipped{schedule, plan}  1 when that fire
          queued no run (overlap skip, no agents, a refusal), else 0;
      iofleet_schedule_verdict{schedule, plan, run, verdict}  for its
          latest judged run, 1 on that run's verdict (pass, regressed,
          failed, no-baseline, unjudged) and 0 on the others;
      iofleet_schedule_sla_failed{schedule, plan, run}  1 when that run's
          report fails its plan's SLA (the report's "verdict"), else 0;
      iofleet_schedule_regression_percent{schedule, plan, run, step,
          group, metric}  each significant change for the worse that run
          showed against its baseline (the regressions list), in %;
      iofleet_schedule_iops, iofleet_schedule_bandwidth_bytes,
          iofleet_schedule_p99_seconds{schedule, plan, run, step, group,
          direction}  that run's figures per step, for the fleet (group
          "fleet") and per group of the schedule's --by ("KEY=VALUE").

    A run's figures come from its report (report_json), made once per
    run and kept: a scrape after a new run pays one report.
*/
#ifndef IOF_METRICS_SCHEDULES_H
#define IOF_METRICS_SCHEDULES_H

#include <stdio.h>

#include "store.h"

typedef struct metrics_sched metrics_sched_t;

/* What the figures of runs are kept in.  NULL when out of memory. */
metrics_sched_t *metrics_sched_new (void);
void metrics_sched_destroy (metrics_sched_t **self_p);

/* The schedules' series into f, read through reader.  Returns 0, or -1
   on a database error (logged; what was written before it stays). */
int metrics_sched_write (metrics_sched_t *self, store_t *reader, FILE *f);

#endif
