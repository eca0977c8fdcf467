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
/* A step's SLA verdict, on the fleet's merged figures and on every
   target, one agent at a time: step_sla_new (NULL: the job has no sla=,
   or none that parses, or out of memory), step_sla_agent for each of the
   report's agents, step_sla_end once the step has its "fleet": adds
   "sla" to step s and frees c.  step_sla_end returns 1 when the step
   failed, 0 when it passed. */
typedef struct step_sla step_sla_t;
step_sla_t *step_sla_new (json_t *job);
void step_sla_agent (step_sla_t *c, json_t *aj);
int step_sla_end (step_sla_t *c, json_t *s);

#endif
