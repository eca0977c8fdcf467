/*  step_results.h: a finished step's results (the write path): the
    results rows of every (agent, target, direction) and the step's
    fleet_results, merged from its stored snapshots.
*/
#ifndef IOF_STEP_RESULTS_H
#define IOF_STEP_RESULTS_H

#include <stdint.h>

#include "store.h"

/* Called with each agent's stored ops and bytes (read + write). */
typedef void (report_agent_fn) (void *arg, uint64_t agent_id, uint64_t ops, uint64_t bytes);
/* Computes and stores results and fleet_results of a finished step, in
   one pass over its snapshots; totals (if not NULL) gets each agent's
   stored ops and bytes on the way.  Returns 0, or -1 when a stored
   histogram did not decode or on a database error (both logged; after a
   read error the step's fleet results are not stored). */
int report_finalize_step (store_t *store, int64_t run, int step, uint64_t interval_ns,
                          report_agent_fn *totals, void *arg);

#endif
