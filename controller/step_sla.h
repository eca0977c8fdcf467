/*  step_sla.h: a step's SLA verdict on the figures of a report. */
#ifndef IOF_STEP_SLA_H
#define IOF_STEP_SLA_H

#include <jansson.h>

#include "sla.h"

/* key of every direction of dirs (a target's, group's or the fleet's
   {"read", "write"[, "trim"]}) summed: the total IOPS or bandwidth.
   Can't fail. */
double step_sla_total (json_t *dirs, const char *key);
/* Checks the conditions on one target's (or group's, or the fleet's)
   figures dirs; adds failures to `fails` (with `who`) and every check to
   `checks` when given.  Returns the number failed. */
int step_sla_apply (const sla_t *sla, json_t *dirs, json_t *who, json_t *fails, json_t *checks);
/* Adds "sla" to step s: the verdict on the fleet's merged figures and on
   every target.  Returns 1 when it failed, 0 when it passed or has none. */
int step_sla_add (json_t *s);

#endif
