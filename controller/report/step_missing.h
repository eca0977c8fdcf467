/*  step_missing.h: which intervals each agent of a step is missing.

    The step's intervals are 0..N-1, N one past the highest seq any agent
    delivered; an agent that delivered fewer, or was lost or failed, is
    "incomplete", with its "missing_intervals".  Its delivered intervals
    stay in every figure (the rule: what was measured counts, what was not
    is listed), and the step says which agents its figures hold incomplete
    data of ("incomplete_agents").  An agent that refused the step is
    neither: it is listed with its reason in "refused_agents".
*/
#ifndef IOF_STEP_MISSING_H
#define IOF_STEP_MISSING_H

#include <jansson.h>
#include <stdint.h>

#include "store.h"

/* step_missing_new reads the intervals each agent delivered (NULL on a
   database error, logged, or when out of memory); step_missing_agent
   is given each agent as the report takes it; step_missing_end adds the
   step's keys and destroys the object. */
typedef struct step_missing step_missing_t;
step_missing_t *step_missing_new (store_t *store, int64_t run, int step);
/* Agent a's "intervals_expected", "missing_intervals" and "incomplete".
   Can't fail. */
void step_missing_agent (step_missing_t *self, json_t *a);
/* The step's intervals (one past the highest seq delivered), and how
   many of from..to agent did not deliver (all when it is unknown).
   Can't fail. */
int64_t step_missing_n (const step_missing_t *self);
int64_t step_missing_absent (const step_missing_t *self, const char *agent, int64_t from,
                             int64_t to);
/* The step's "incomplete_rule", "incomplete_agents" and "refused_agents"
   into s; *self_p is destroyed.  Can't fail. */
void step_missing_end (step_missing_t **self_p, json_t *s);
void step_missing_destroy (step_missing_t **self_p);

#endif
