/*  engine_posixaio.c: POSIX AIO (aio_read / aio_write, aio_suspend), as
    fio's posixaio: each I/O is handed to the C library, which runs it on
    a thread of its own (glibc issues a pread or pwrite there); completions
    are found by asking each I/O in flight (aio_error), waiting in
    aio_suspend while none has ended.  fio hands an I/O over when it is
    queued; here when the batch is committed, which with fio's default
    iodepth_batch of 1 is the same. */
#include "engine.h"

#include <aio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    unsigned depth;
    io_unit_t **queued;         /* batch for the next commit */
    unsigned nqueued;
    io_unit_t **inflight;       /* handed to the library, not yet reaped */
    unsigned ninflight;
    io_unit_t **events;         /* reaped by the last getevents */
    const struct aiocb **wait;  /* aio_suspend's list */
} posixaio_t;

static void
posixaio_free (posixaio_t *a)
{
    free (a->queued);
    free (a->inflight);
    free (a->events);
    free (a->wait);
    free (a);
}

static int
posixaio_init (engine_t *e, unsigned depth)
{
    if (depth == 0)
        return -EINVAL;
    posixaio_t *a = calloc (1, sizeof *a);
    if (!a)
        return -ENOMEM;
    a->depth = depth;
    a->queued = calloc (depth, sizeof *a->queued);
    a->inflight = calloc (depth, sizeof *a->inflight);
    a->events = calloc (depth, sizeof *a->events);
    a->wait = calloc (depth, sizeof *a->wait);
    if (!a->queued || !a->inflight || !a->events || !a->wait) {
        posixaio_free (a);
        return -ENOMEM;
    }
    e->data = a;
    return 0;
}

static int
posixaio_queue (engine_t *e, io_unit_t *u)
{
    posixaio_t *a = e->data;
    if (a->nqueued + a->ninflight >= a->depth)
        return -EBUSY;
    struct aiocb *cb = u->engine_data;
    if (!cb) {
        cb = calloc (1, sizeof *cb);
        if (!cb)
            return -ENOMEM;
        u->engine_data = cb;
    }
    memset (cb, 0, sizeof *cb);
    cb->aio_fildes = u->fd;
    cb->aio_buf = u->buf;
    cb->aio_nbytes = u->len;
    cb->aio_offset = (off_t) u->offset;
    cb->aio_sigevent.sigev_notify = SIGEV_NONE;
    a->queued[a->nqueued++] = u;
    return 0;
}

static int
posixaio_commit (engine_t *e)
{
    posixaio_t *a = e->data;
    unsigned n = 0;
    for (; n < a->nqueued; n++) {
        io_unit_t *u = a->queued[n];
        struct aiocb *cb = u->engine_data;
        int rc = u->dir == IO_READ ? aio_read (cb) : aio_write (cb);
        if (rc < 0) {
            int err = errno;
            /* What was handed over stays in flight; the rest is dropped
               with the worker, which stops on the error. */
            memmove (a->queued, a->queued + n, (a->nqueued - n) * sizeof *a->queued);
            a->nqueued -= n;
            return n ? (int) n : -err;
        }
        a->inflight[a->ninflight++] = u;
    }
    a->nqueued = 0;
    return (int) n;
}

/* Moves the I/Os in flight that have ended, up to max, to events[*got..].
   Can't fail (an I/O that failed has its res set to -errno). */
static void
harvest (posixaio_t *a, unsigned max, unsigned *got)
{
    for (unsigned i = 0; i < a->ninflight && *got < max; ) {
        io_unit_t *u = a->inflight[i];
        struct aiocb *cb = u->engine_data;
        int err = aio_error (cb);
        if (err == EINPROGRESS) {
            i++;
            continue;
        }
        ssize_t r = aio_return (cb);
        u->res = err ? -(int64_t) err : (int64_t) r;
        a->events[(*got)++] = u;
        a->inflight[i] = a->inflight[--a->ninflight];
    }
}

static int
posixaio_getevents (engine_t *e, unsigned min, unsigned max, uint64_t timeout_ns)
{
    posixaio_t *a = e->data;
    unsigned got = 0;
    struct timespec start;
    clock_gettime (CLOCK_MONOTONIC, &start);
    for (;;) {
        harvest (a, max, &got);
        if (got >= min || got == max || a->ninflight == 0)
            return (int) got;
        struct timespec now;
        clock_gettime (CLOCK_MONOTONIC, &now);
        uint64_t spent = (uint64_t) (now.tv_sec - start.tv_sec) * 1000000000ull
                       + (uint64_t) now.tv_nsec - (uint64_t) start.tv_nsec;
        if (spent >= timeout_ns)
            return (int) got;
        uint64_t left = timeout_ns - spent;
        struct timespec ts = { (time_t) (left / 1000000000ull), (long) (left % 1000000000ull) };
        for (unsigned i = 0; i < a->ninflight; i++)
            a->wait[i] = a->inflight[i]->engine_data;
        /* EAGAIN (timed out) and EINTR both mean: look again. */
        aio_suspend (a->wait, (int) a->ninflight, &ts);
    }
}

static io_unit_t *
posixaio_event (engine_t *e, unsigned i)
{
    posixaio_t *a = e->data;
    return a->events[i];
}

static void
posixaio_cleanup (engine_t *e)
{
    posixaio_t *a = e->data;
    if (!a)
        return;
    /* Nothing may still write into a unit's buffer once it is freed. */
    for (unsigned i = 0; i < a->ninflight; i++) {
        struct aiocb *cb = a->inflight[i]->engine_data;
        if (aio_cancel (cb->aio_fildes, cb) == AIO_NOTCANCELED) {
            const struct aiocb *one[1] = { cb };
            while (aio_error (cb) == EINPROGRESS)
                aio_suspend (one, 1, NULL);
        }
        aio_return (cb);
    }
    posixaio_free (a);
    e->data = NULL;
}

const engine_ops_t engine_posixaio_ops = {
    .name = "posixaio",
    .init = posixaio_init,
    .queue = posixaio_queue,
    .commit = posixaio_commit,
    .getevents = posixaio_getevents,
    .event = posixaio_event,
    .cleanup = posixaio_cleanup,
};
