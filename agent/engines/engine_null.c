/*  engine_null.c: no I/O at all, as fio's null engine: every queued unit
    completes at commit with res = len.  It measures the cost of the
    worker and the engine interface, so it makes no system calls and does
    not allocate after init. */
#include "engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned depth;
    io_unit_t **queued;         /* batch for the next commit */
    unsigned nqueued;
    io_unit_t **done;           /* completed, not yet reaped */
    unsigned ndone;
    io_unit_t **events;         /* reaped by the last getevents */
} null_t;

static void
null_free (null_t *a)
{
    free (a->queued);
    free (a->done);
    free (a->events);
    free (a);
}

static int
null_init (engine_t *e, unsigned depth)
{
    if (depth == 0)
        return -EINVAL;
    null_t *a = calloc (1, sizeof *a);
    if (!a)
        return -ENOMEM;
    a->depth = depth;
    a->queued = calloc (depth, sizeof *a->queued);
    a->done = calloc (depth, sizeof *a->done);
    a->events = calloc (depth, sizeof *a->events);
    if (!a->queued || !a->done || !a->events) {
        null_free (a);
        return -ENOMEM;
    }
    e->data = a;
    return 0;
}

static int
null_queue (engine_t *e, io_unit_t *u)
{
    null_t *a = e->data;
    if (a->nqueued + a->ndone >= a->depth)
        return -EBUSY;
    a->queued[a->nqueued++] = u;
    return 0;
}

static int
null_commit (engine_t *e)
{
    null_t *a = e->data;
    unsigned n = a->nqueued;
    for (unsigned i = 0; i < n; i++) {
        io_unit_t *u = a->queued[i];
        u->res = u->len;
        a->done[a->ndone++] = u;
    }
    a->nqueued = 0;
    return (int) n;
}

static int
null_getevents (engine_t *e, unsigned min, unsigned max, uint64_t timeout_ns)
{
    (void) min;                 /* nothing else will complete by waiting */
    (void) timeout_ns;
    null_t *a = e->data;
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
null_event (engine_t *e, unsigned i)
{
    null_t *a = e->data;
    return a->events[i];
}

static void
null_cleanup (engine_t *e)
{
    null_t *a = e->data;
    if (!a)
        return;
    null_free (a);
    e->data = NULL;
}

const engine_ops_t engine_null_ops = {
    .name = "null",
    .completes_at_commit = true,
    .init = null_init,
    .queue = null_queue,
    .commit = null_commit,
    .getevents = null_getevents,
    .event = null_event,
    .cleanup = null_cleanup,
};
