/*  submit.h: queuing a run on the selected agents.  */
#ifndef IOF_SUBMIT_H
#define IOF_SUBMIT_H

#include "controller.h"

/* select.c */
/* Queues a run of plan (latest version) on the named agents ("all" or a
   comma list).  The run fails at the first step where fewer than
   min_agents (0: one) are READY, or, with require_all, where any selected
   agent is not.  commit: make it durable now (else the caller's
   transaction, or the tick's, does).  Returns a JSON result or NULL with
   err filled. */
json_t *submit_run (ctl_t *ctl, const char *plan, const char *agents, int min_agents,
                       bool require_all, bool commit, char *err, size_t errlen);
/* How many agents the controller has ever seen (connected or not) the
   selector agents ("all", names, or KEY=GLOB conditions) picks: "all" is
   1; 0 with err naming the selector when none, or an unknown name. */
int submit_agents_known (ctl_t *ctl, const char *agents, char *err, size_t errlen);
#endif
