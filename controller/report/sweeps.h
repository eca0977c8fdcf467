/*  sweeps.h: the queue-depth curves of a run's sweeps. */
#ifndef IOF_SWEEPS_H
#define IOF_SWEEPS_H

#include <jansson.h>

/* The curves of a report's steps (each with "job", "fleet" and, when
   grouped, "groups"): for each swept section and each rw/bs of it (and
   each group), IOPS and p99 against iodepth, the knee and the SLA
   capacity.  Returns a new array (empty: no sweep).  Can't fail. */
json_t *sweeps_json (json_t *steps);

#endif
