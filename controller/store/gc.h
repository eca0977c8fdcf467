/*  gc.h: dropping ended runs' per-interval snapshots.  */
#ifndef IOF_GC_H
#define IOF_GC_H

#include "controller.h"

/* gc.c */
/* Marks the ended runs whose per-interval snapshots may go: those ended
   more than keep_s seconds ago, and those not among the newest keep_runs
   ended runs of iofleet's own, imports aside (-1: no such limit; one of
   the two is given).  Baselines
   (a schedule's pinned one, or its last pass) are never marked.  In the
   loop's transaction.  Returns the runs marked, or -1 on a database
   error. */
int gc_expire (ctl_t *ctl, int64_t keep_s, int64_t keep_runs);
/* Deletes one bounded batch of the snapshots of the oldest marked run
   that still has some; *run is that run (0: none).  In the loop's
   transaction.  Returns the rows deleted (0: nothing left to drop), or -1
   on a database error. */
int64_t gc_drop (ctl_t *ctl, int64_t *run);
/* Admin "gc" {keep_intervals_s}: drops per-interval snapshots of runs
   ended more than that ago.  NULL with err filled (a run queued or
   running, a database error). */
json_t *gc_run (ctl_t *ctl, json_t *req, char *err, size_t errlen);

#endif
