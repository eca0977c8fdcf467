/*  engine_sync.h: the parts shared by engines whose I/O is complete when
    commit returns (psync, pvsync, pvsync2, sync, vsync, null): the batch
    queued for the next commit, the completed units waiting to be reaped,
    and, for the engines that move a file's position (sync, vsync), where
    each descriptor's position was left.  An engine supplies what it does
    to one unit, through sync_commit, or its own commit. */
#ifndef IOF_ENGINE_SYNC_H
#define IOF_ENGINE_SYNC_H

#include "engine.h"
#include "util.h"

typedef struct {
    unsigned depth;
    io_unit_t **queued;         /* batch for the next commit */
    unsigned nqueued;
    io_unit_t **done;           /* completed, not yet reaped */
    unsigned ndone;
    io_unit_t **events;         /* reaped by the last getevents */
    int64_t *fdpos;             /* by descriptor: its file position, -1 unknown */
    unsigned nfdpos;
} sync_queue_t;

/* Returns 0, -EINVAL (depth 0) or -ENOMEM. */
int sync_init (engine_t *e, unsigned depth);
/* Returns 0, or -EBUSY when depth units are queued or unreaped. */
int sync_queue (engine_t *e, io_unit_t *u);
/* Hands out what commit completed, up to max, without blocking.  Can't fail. */
int sync_getevents (engine_t *e, unsigned min, unsigned max, uint64_t timeout_ns);
io_unit_t *sync_event (engine_t *e, unsigned i);
void sync_cleanup (engine_t *e);

/* Moves fd's file position to off unless it is there already (fio's
   sync engine skips the lseek then; always = seek anyway, as vsync).
   Returns 0 or -errno.  A descriptor never seen is at 0 (just opened). */
int sync_seek (sync_queue_t *q, int fd, uint64_t off, bool always);

/* Records where fd's position is after a transfer from off of res bytes
   (res < 0: unknown, so the next I/O seeks).  Can't fail. */
void sync_moved (sync_queue_t *q, int fd, uint64_t off, int64_t res);

/* Runs do_io on every queued unit (it sets res) and moves them to the
   completed list; with timed, stamps each unit's t_issue and t_done around
   its do_io (one clock read between two units serves both).  Returns the
   number committed.  Inline, so the null engine's do_io costs no call. */
static inline int
sync_commit (engine_t *e, void (*do_io) (sync_queue_t *q, io_unit_t *u), bool timed)
{
    sync_queue_t *q = e->data;
    unsigned n = q->nqueued;
    uint64_t t = timed ? clock_mono_ns () : 0;
    for (unsigned i = 0; i < n; i++) {
        io_unit_t *u = q->queued[i];
        do_io (q, u);
        if (timed) {
            u->t_issue = t;
            u->t_done = t = clock_mono_ns ();
        }
        q->done[q->ndone++] = u;
    }
    q->nqueued = 0;
    return (int) n;
}

#endif
