/*  retention.h: the retention policy.  */
#ifndef IOF_RETENTION_H
#define IOF_RETENTION_H

#include "controller.h"

/* retention.c: the retention policy, applied while no run is queued or
   running.  keep_s: --retain-intervals in seconds, keep_runs:
   --retain-interval-runs (-1: not given).  NULL when neither is given
   (or out of memory: the caller tells them apart). */
retention_t *retention_new (int64_t keep_s, int64_t keep_runs);
void retention_destroy (retention_t **self_p);
/* Looks for runs past the policy at the next tick (a run ended).  self
   may be NULL.  Can't fail. */
void retention_soon (retention_t *self);
/* Once per loop tick: when idle and due, marks the runs past the policy,
   then drops one batch of their snapshots in the loop's transaction; the
   space freed is logged per run.  Can't fail (errors are logged). */
void retention_tick (ctl_t *ctl);
/* The policy and what it did since start, for iofleet stats; self may be
   NULL ({"policy": false}). */
json_t *retention_json (const retention_t *self);

#endif
