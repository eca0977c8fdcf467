/*  history_index.h: the history index's builder.  */
#ifndef IOF_HISTORY_INDEX_H
#define IOF_HISTORY_INDEX_H

#include "controller.h"

/* history_index.c (history.h has its reader): the index's builder.  NULL
   when out of memory. */
history_index_t *history_index_new (void);
void history_index_destroy (history_index_t **self_p);
/* Looks for steps to index at the next tick (a run ended).  Can't fail. */
void history_index_soon (history_index_t *self);
/* Once per loop tick: when idle and due, indexes one step of the oldest
   run not indexed yet, in the loop's transaction.  Can't fail (errors
   are logged, and the step is computed by history meanwhile). */
void history_index_tick (ctl_t *ctl);
/* {"steps": indexed since start, "working": steps are left}, for stats. */
json_t *history_index_json (const history_index_t *self);

#endif
