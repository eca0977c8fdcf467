/*  step_rows.h: the rows of a run's steps as the run state machine (run/)
    records them: steps, step_agents (each agent's part in a step),
    latency_depths, run_inventory, and the fleet intervals of a step
    prepared again.  Each takes the store and plain values; writes go into
    the open transaction (the caller's: the loop batches a tick's writes)
    and return 0, or -1 on a database error (logged; a lost write is
    counted by the store and holds the run, store_failing).
*/
#ifndef IOF_STEP_ROWS_H
#define IOF_STEP_ROWS_H

#include "store.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* steps */
/* Adds (or replaces) step idx of run, pending: its name, its spec (JSON
   text), its round (0: none, NULL) and the plan's job group it runs
   (plan_step).  Returns 0 or -1. */
int step_rows_add (store_t *store, int64_t run, int idx, const char *name, const char *spec,
                   int round, int plan_step);
/* Records step idx's status; start_at (0: kept as it is), and for an end
   (complete, partial, failed, cancelled) finished_at now_ns.  Returns 0
   or -1. */
int step_rows_set_status (store_t *store, int64_t run, int idx, const char *status,
                          int64_t start_at, int64_t now_ns);
/* Records step idx's start skew (skew_ns < 0: unknown, NULL).  Returns 0
   or -1. */
int step_rows_set_skew (store_t *store, int64_t run, int idx, int64_t skew_ns);
/* Cancels run's pending steps after idx.  Returns 0 or -1. */
int step_rows_cancel_pending (store_t *store, int64_t run, int idx);
/* run's steps, by idx, in *rows: [{"idx", "status", "start_at"}, ...]
   (start_at 0 when NULL).  Returns 0, or -1 on a database error (logged)
   with *rows the steps read before it. */
int step_rows_list (store_t *store, int64_t run, json_t **rows);

/* step_agents */
/* An agent's part in a step, as step_agents records it. */
typedef struct {
    int64_t agent_id;
    const char *status;                 /* step_agents.status */
    const char *message;
    int64_t actual_start;               /* 0: unknown (NULL) */
    int snapshots;
    bool clock_known;                   /* else offset and delay are NULL */
    int64_t clock_offset, clock_delay;
    int64_t spool_dropped;
    bool restarted;
} step_rows_agent_t;
/* Records a's part in step idx of run (targets: its targets as JSON
   text, or NULL to keep those stored, '[]' for a new row).  Returns 0 or
   -1. */
int step_rows_save_agent (store_t *store, int64_t run, int idx, const step_rows_agent_t *a,
                          const char *targets);
/* Records the bytes each target of agent_id in step idx is to move (JSON
   text: an array), target_planned.  Returns 0 or -1. */
int step_rows_set_planned (store_t *store, int64_t run, int idx, int64_t agent_id,
                           const char *planned);
/* Records the drive each target of agent_id in step idx is (JSON text),
   target_drives.  Returns 0 or -1. */
int step_rows_set_drives (store_t *store, int64_t run, int idx, int64_t agent_id,
                          const char *drives);
/* agent_id's status and message in step idx (message "" when NULL).
   Returns 1; 0 when it has no row there; -1 on a database error
   (logged). */
int step_rows_agent_status (store_t *store, int64_t run, int idx, int64_t agent_id,
                            char *status, size_t statuslen, char *msg, size_t msglen);
/* Whether agent_id's part in step idx is stored as done.  Returns 1 or 0;
   -1 on a database error (logged). */
int step_rows_agent_done (store_t *store, int64_t run, int idx, int64_t agent_id);
/* agent_id's targets in step idx (a new reference to the JSON array
   stored), or NULL: no row, not JSON, or a database error (logged). */
json_t *step_rows_agent_targets (store_t *store, int64_t run, int idx, int64_t agent_id);
/* The agents' parts in step idx of run, in *rows: [{"agent_id",
   "status", "message", "targets", "actual_start", "snapshots",
   "spool_dropped", "restarted", "target_planned"}, ...], the text columns
   (message, targets, target_planned) as stored (JSON text, null when
   NULL), the others integers.  Returns 0, or -1 on a database error
   (logged) with *rows the parts read before it. */
int step_rows_agents (store_t *store, int64_t run, int idx, json_t **rows);

/* latency_depths */
/* Forgets agent_id's latency_target depths in step idx.  Returns 0 or -1. */
int step_rows_clear_depths (store_t *store, int64_t run, int idx, int64_t agent_id);
/* Records the depth job (of step idx) found on agent_id.  Returns 0 or -1. */
int step_rows_add_depth (store_t *store, int64_t run, int idx, int64_t agent_id, int job,
                         int64_t depth);

/* Forgets what an earlier attempt at step idx stored besides its
   snapshot blocks (snapshot_store_clear_step): its fleet intervals and
   latency depths.  Returns 0, or -1 when either could not be removed. */
int step_rows_clear_attempt (store_t *store, int64_t run, int idx);

/* run_inventory */
/* Records that agent_id came to step idx of run with inventory
   inventory_id.  Returns 0 or -1. */
int step_rows_set_inventory (store_t *store, int64_t run, int idx, int64_t agent_id,
                             int64_t inventory_id);

#endif
