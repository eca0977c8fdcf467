/*  idle.h: when the controller may do the work it does between runs
    (retention, the history index, the snapshot dictionary).  */
#ifndef IOF_IDLE_H
#define IOF_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

/* At once after a run ends (idle_soon), then a look a minute, a piece
   per loop tick while there is more (working), and never while a run is
   queued or running. */
typedef struct {
    uint64_t next_ns;           /* monotonic: the next look; 0 at once */
} idle_turn_t;

static inline void
idle_soon (idle_turn_t *t)
{
    t->next_ns = 0;
}

/* Whether the caller may do a piece of its idle work now; when it is a
   new look (not working), the next one is due in a minute.  Can't fail
   (a database error reads as busy). */
bool idle_turn (store_t *store, idle_turn_t *t, bool working);

#endif
