/*  engine_libaio.c: Linux native AIO (io_submit / io_getevents). */
#include "engine.h"

#include <errno.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    io_context_t ctx;
    unsigned depth;
    struct iocb **queued;       /* batch for the next commit */
    unsigned nqueued;
    struct io_event *events;
    unsigned nevents;
} libaio_t;

static int
libaio_init (engine_t *e, unsigned depth)
{
    libaio_t *a = calloc (1, sizeof *a);
    if (!a)
        return -ENOMEM;
    a->depth = depth;
    a->queued = calloc (depth, sizeof *a->queued);
    a->events = calloc (depth, sizeof *a->events);
    if (!a->queued || !a->events) {
        free (a->queued);
        free (a->events);
        free (a);
        return -ENOMEM;
    }
    int rc = io_setup ((int) depth, &a->ctx);
    if (rc < 0) {
        free (a->queued);
        free (a->events);
        free (a);
        return rc;              /* -EAGAIN: fs.aio-max-nr too low */
    }
    e->data = a;
    return 0;
}

static int
libaio_queue (engine_t *e, io_unit_t *u)
{
    libaio_t *a = e->data;
    if (a->nqueued == a->depth)
        return -EBUSY;
    struct iocb *cb = u->engine_data;
    if (!cb) {
        cb = calloc (1, sizeof *cb);
        if (!cb)
            return -ENOMEM;
        u->engine_data = cb;
    }
    if (u->dir == IO_READ)
        io_prep_pread (cb, u->fd, u->buf, u->len, (long long) u->offset);
    else
        io_prep_pwrite (cb, u->fd, u->buf, u->len, (long long) u->offset);
    cb->data = u;
    a->queued[a->nqueued++] = cb;
    return 0;
}

static int
libaio_commit (engine_t *e)
{
    libaio_t *a = e->data;
    unsigned done = 0;
    while (done < a->nqueued) {
        int rc = io_submit (a->ctx, (long) (a->nqueued - done), a->queued + done);
        if (rc == -EAGAIN || rc == -EINTR)
            continue;
        if (rc < 0) {
            a->nqueued = 0;
            return rc;
        }
        done += (unsigned) rc;
    }
    a->nqueued = 0;
    return (int) done;
}

static int
libaio_getevents (engine_t *e, unsigned min, unsigned max, uint64_t timeout_ns)
{
    libaio_t *a = e->data;
    struct timespec ts = { .tv_sec = (time_t) (timeout_ns / 1000000000ull),
                           .tv_nsec = (long) (timeout_ns % 1000000000ull) };
    if (max > a->depth)
        max = a->depth;
    int rc;
    do
        rc = io_getevents (a->ctx, (long) min, (long) max, a->events, &ts);
    while (rc == -EINTR);
    if (rc < 0)
        return rc;
    a->nevents = (unsigned) rc;
    return rc;
}

static io_unit_t *
libaio_event (engine_t *e, unsigned i)
{
    libaio_t *a = e->data;
    struct io_event *ev = &a->events[i];
    io_unit_t *u = ev->obj->data;
    /* res is unsigned long in the ABI; a failed I/O stores -errno there. */
    u->res = (int64_t) (long) ev->res;
    return u;
}

static void
libaio_cleanup (engine_t *e)
{
    libaio_t *a = e->data;
    if (!a)
        return;
    io_destroy (a->ctx);
    free (a->queued);
    free (a->events);
    free (a);
    e->data = NULL;
}

const engine_ops_t engine_libaio_ops = {
    .name = "libaio",
    .init = libaio_init,
    .queue = libaio_queue,
    .commit = libaio_commit,
    .getevents = libaio_getevents,
    .event = libaio_event,
    .cleanup = libaio_cleanup,
};
