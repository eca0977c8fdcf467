/*  step_results.h: a finished step's results (the write path): the
    results rows of every (agent, target, direction) and the step's
    fleet_results, merged from its stored snapshots.

    Made in two parts so a thread of its own can make them off the event
    loop (finalizer.c): step_results_compute reads the snapshots (a read
    transaction) and holds the rows in memory; step_results_save writes
    them (in the caller's one write transaction: all or nothing).
*/
#ifndef IOF_STEP_RESULTS_H
#define IOF_STEP_RESULTS_H

#include <stdatomic.h>
#include <stdint.h>

#include "store.h"

typedef struct step_results step_results_t;

/* Called with each agent's stored ops and bytes (read + write). */
typedef void (report_agent_fn) (void *arg, uint64_t agent_id, uint64_t ops, uint64_t bytes);

/* The results of run's step, from its snapshots as db holds them, in one
   pass ordered by agent and target.  stop (may be NULL): when it turns
   true the pass gives up.  Returns NULL on a database error (logged),
   when out of memory, or stopped. */
step_results_t *step_results_compute (sqlite3 *db, int64_t run, int step,
                                      const atomic_bool *stop);
void step_results_destroy (step_results_t **self_p);
/* Writes the results rows and fleet_results with db (the caller holds
   the transaction).  Returns 0, or -1 on a database error (logged). */
int step_results_save (const step_results_t *self, sqlite3 *db);
/* Calls fn with each agent's stored ops and bytes, in agent order.
   Can't fail. */
void step_results_totals (const step_results_t *self, report_agent_fn *fn, void *arg);
/* Stored histograms that did not decode (logged).  Can't fail. */
int step_results_bad (const step_results_t *self);

/* Computes and stores the results of run's step on the loop's
   connection, in its open transaction (opened if none is).  Returns
   them, or NULL on a database error (the transaction is failed:
   store_failures moves) or when out of memory. */
step_results_t *step_results_store (store_t *store, int64_t run, int step);


#endif
