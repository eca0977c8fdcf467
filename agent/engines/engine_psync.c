/*  engine_psync.c: synchronous pread/pwrite, as fio's psync.

    commit does the queued I/Os one after the other, each with a single
    pread or pwrite: a short transfer is reported as is, and a failure is
    the unit's res (-errno), never commit's, as with the async engines.
    getevents then hands out what commit completed, without blocking. */
#include "engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    unsigned depth;
    io_unit_t **queued;         /* batch for the next commit */
    unsigned nqueued;
    io_unit_t **done;           /* completed, not yet reaped */
    unsigned ndone;
    io_unit_t **events;         /* reaped by the last getevents */
} psync_t;

static void
psync_free (psync_t *a)
{
    free (a->queued);
    free (a->done);
    free (a->events);
    free (a);
}

static int
psync_init (engine_t *e, unsigned depth)
{
    if (depth == 0)
        return -EINVAL;
    psync_t *a = calloc (1, sizeof *a);
    if (!a)
        return -ENOMEM;
    a->depth = depth;
    a->queued = calloc (depth, sizeof *a->queued);
    a->done = calloc (depth, sizeof *a->done);
    a->events = calloc (depth, sizeof *a->events);
    if (!a->queued || !a->done || !a->events) {
        psync_free (a);
        return -ENOMEM;
    }
    e->data = a;
    return 0;
}

static int
psync_queue (engine_t *e, io_unit_t *u)
{
    psync_t *a = e->data;
    if (a->nqueued + a->ndone >= a->depth)
        return -EBUSY;
    a->queued[a->nqueued++] = u;
    return 0;
}

static int
psync_commit (engine_t *e)
{
    psync_t *a = e->data;
    unsigned n = a->nqueued;
    for (unsigned i = 0; i < n; i++) {
        io_unit_t *u = a->queued[i];
        ssize_t r;
        do
            r = u->dir == IO_READ ? pread (u->fd, u->buf, u->len, (off_t) u->offset)
                                  : pwrite (u->fd, u->buf, u->len, (off_t) u->offset);
        while (r < 0 && errno == EINTR);
        u->res = r < 0 ? -(int64_t) errno : (int64_t) r;
        a->done[a->ndone++] = u;
    }
    a->nqueued = 0;
    return (int) n;
}

static int
psync_getevents (engine_t *e, unsigned min, unsigned max, uint64_t timeout_ns)
{
    (void) min;                 /* nothing else will complete by waiting */
    (void) timeout_ns;
    psync_t *a = e->data;
    unsigned n = a->ndone < max ? a->ndone : max;
    if (n == a->ndone) {
        io_unit_t **t = a->events;
        a->events = a->done;
        a->done = t;
        a->ndone = 0;
    } else {
        memcpy (a->events, a->done, n * sizeof *a->done);
        memmove (a->done, a->done + n, (a->ndone - n) * sizeof *a->done);
        a->ndone -= n;
    }
    return (int) n;
}

static io_unit_t *
psync_event (engine_t *e, unsigned i)
{
    psync_t *a = e->data;
    return a->events[i];
}

static void
psync_cleanup (engine_t *e)
{
    psync_t *a = e->data;
    if (!a)
        return;
    psync_free (a);
    e->data = NULL;
}

const engine_ops_t engine_psync_ops = {
    .name = "psync",
    .completes_at_commit = true,
    .init = psync_init,
    .queue = psync_queue,
    .commit = psync_commit,
    .getevents = psync_getevents,
    .event = psync_event,
    .cleanup = psync_cleanup,
};
