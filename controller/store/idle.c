/*  idle.c: the one rule for the controller's idle work (idle.h).  */
#include "idle.h"
#include "runs.h"
#include "util.h"

#define IDLE_LOOK_NS  (60ull * NS_PER_SEC)

bool
idle_turn (store_t *store, idle_turn_t *t, bool working)
{
    uint64_t now = clock_mono_ns ();
    int64_t busy;
    if ((!working && now < t->next_ns) || runs_busy (store, &busy))
        return false;
    if (!working)
        t->next_ns = now + IDLE_LOOK_NS;
    return true;
}
