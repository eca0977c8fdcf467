/*  inventories.h: agents' inventories as stored, per agent and per run's step.  */
#ifndef IOF_INVENTORIES_H
#define IOF_INVENTORIES_H

#include "controller.h"
#include "store.h"

/* inventory.c */
/* Stores an agent's inventory JSON text (if it is one) unless the same is
   stored already, and makes it the agent's current one.  Returns its id,
   or 0 when text is empty or not an inventory (counted, logged). */
int64_t inventories_store (ctl_t *ctl, uint64_t agent_id, const char *text);
/* {"agent", "hash", "first_seen", "inventory"} of an agent's current
   inventory, or NULL with err filled. */
json_t *inventories_of (ctl_t *ctl, const char *agent, char *err, size_t errlen);
/* {agent: as inventories_of} of the inventories run's agents came with
   (each one's at the first step it took part in; every agent of the run,
   whatever a report's --where kept), at most
   RUN_INVENTORIES_MAX agents; NULL on a database error (logged) or out of
   memory. */
#define RUN_INVENTORIES_MAX 256
json_t *inventories_of_run (store_t *store, int64_t run);
/* The inventory agent came with to step of run (its READY; run_inventory),
   a new reference, or NULL: none, or a database error (logged, *failed
   set).  cache, when not NULL, is an object the caller owns that keeps
   each inventory parsed once (by its id). */
json_t *inventories_at_step (store_t *store, json_t *cache, int64_t run, int step,
                           const char *agent, bool *failed);

#endif
