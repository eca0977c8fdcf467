/*  engine_sync.c: see engine_sync.h. */
#include "engine_sync.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
sync_free (sync_queue_t *q)
{
    free (q->queued);
    free (q->done);
    free (q->events);
    free (q->fdpos);
    free (q);
}

int
sync_init (engine_t *e, unsigned depth)
{
    if (depth == 0)
        return -EINVAL;
    sync_queue_t *q = calloc (1, sizeof *q);
    if (!q)
        return -ENOMEM;
    q->depth = depth;
    q->queued = calloc (depth, sizeof *q->queued);
    q->done = calloc (depth, sizeof *q->done);
    q->events = calloc (depth, sizeof *q->events);
    if (!q->queued || !q->done || !q->events) {
        sync_free (q);
        return -ENOMEM;
    }
    e->data = q;
    return 0;
}

int
sync_queue (engine_t *e, io_unit_t *u)
{
    sync_queue_t *q = e->data;
    if (q->nqueued + q->ndone >= q->depth)
        return -EBUSY;
    q->queued[q->nqueued++] = u;
    return 0;
}

int
sync_getevents (engine_t *e, unsigned min, unsigned max, uint64_t timeout_ns)
{
    (void) min;                 /* nothing else will complete by waiting */
    (void) timeout_ns;
    sync_queue_t *q = e->data;
    unsigned n = q->ndone < max ? q->ndone : max;
    if (n == q->ndone) {
        io_unit_t **t = q->events;
        q->events = q->done;
        q->done = t;
        q->ndone = 0;
    } else {
        memcpy (q->events, q->done, n * sizeof *q->done);
        memmove (q->done, q->done + n, (q->ndone - n) * sizeof *q->done);
        q->ndone -= n;
    }
    return (int) n;
}

io_unit_t *
sync_event (engine_t *e, unsigned i)
{
    sync_queue_t *q = e->data;
    return q->events[i];
}

void
sync_cleanup (engine_t *e)
{
    if (!e->data)
        return;
    sync_free (e->data);
    e->data = NULL;
}

int
sync_seek (sync_queue_t *q, int fd, uint64_t off, bool always)
{
    if (fd < 0)
        return -EBADF;
    if ((unsigned) fd >= q->nfdpos) {
        unsigned n = (unsigned) fd + 16;
        int64_t *p = realloc (q->fdpos, n * sizeof *p);
        if (!p)
            return -ENOMEM;
        for (unsigned i = q->nfdpos; i < n; i++)
            p[i] = 0;
        q->fdpos = p;
        q->nfdpos = n;
    }
    if (!always && q->fdpos[fd] == (int64_t) off)
        return 0;
    if (lseek (fd, (off_t) off, SEEK_SET) < 0) {
        q->fdpos[fd] = -1;
        return -errno;
    }
    q->fdpos[fd] = (int64_t) off;
    return 0;
}

void
sync_moved (sync_queue_t *q, int fd, uint64_t off, int64_t res)
{
    if (fd >= 0 && (unsigned) fd < q->nfdpos)
        q->fdpos[fd] = res < 0 ? -1 : (int64_t) (off + (uint64_t) res);
}
