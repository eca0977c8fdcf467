/*  engine_sync.h: the parts shared by engines whose I/O is complete when
    commit returns (psync, null): the batch queued for the next commit and
    the completed units waiting to be reaped.  An engine supplies only what
    it does to one unit, through sync_commit. */
#ifndef IOF_ENGINE_SYNC_H
#define IOF_ENGINE_SYNC_H

#include "engine.h"

typedef struct {
    unsigned depth;
    io_unit_t **queued;         /* batch for the next commit */
    unsigned nqueued;
    io_unit_t **done;           /* completed, not yet reaped */
    unsigned ndone;
    io_unit_t **events;         /* reaped by the last getevents */
} sync_queue_t;

/* Returns 0, -EINVAL (depth 0) or -ENOMEM. */
int sync_init (engine_t *e, unsigned depth);
/* Returns 0, or -EBUSY when depth units are queued or unreaped. */
int sync_queue (engine_t *e, io_unit_t *u);
/* Hands out what commit completed, up to max, without blocking.  Can't fail. */
int sync_getevents (engine_t *e, unsigned min, unsigned max, uint64_t timeout_ns);
io_unit_t *sync_event (engine_t *e, unsigned i);
void sync_cleanup (engine_t *e);

/* Runs do_io on every queued unit (it sets res) and moves them to the
   completed list.  Returns the number committed.  Inline, so the null
   engine's do_io costs no call. */
static inline int
sync_commit (engine_t *e, void (*do_io) (io_unit_t *u))
{
    sync_queue_t *q = e->data;
    unsigned n = q->nqueued;
    for (unsigned i = 0; i < n; i++) {
        do_io (q->queued[i]);
        q->done[q->ndone++] = q->queued[i];
    }
    q->nqueued = 0;
    return (int) n;
}

#endif
