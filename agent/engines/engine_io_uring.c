/*  engine_io_uring.c: Linux io_uring through liburing (interrupt driven,
    no SQPOLL, no registered files or buffers: the plain fio io_uring
    setup).

    Units in flight are bounded by depth: the CQ ring (twice the SQ ring)
    then never overflows.  The kernel caps the SQ ring at 32768 entries;
    for a deeper job, queue hands a full SQ ring to the kernel early and
    commit counts those too. */
#include "engine.h"

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>

/* The kernel's IORING_MAX_ENTRIES: io_uring_setup refuses more. */
#define URING_MAX_SQ 32768u

typedef struct {
    struct io_uring ring;
    unsigned depth;
    unsigned nqueued;           /* in the SQ ring, not yet submitted */
    unsigned early;             /* submitted by queue since the last commit */
    unsigned inflight;          /* submitted, not yet reaped */
    struct io_uring_cqe **cqes; /* scratch for io_uring_peek_batch_cqe */
    io_unit_t **events;         /* completed by the last getevents */
    unsigned nevents;
    unsigned maxevents;         /* size of cqes and events */
} uring_t;

static void
uring_free (uring_t *a)
{
    free (a->cqes);
    free (a->events);
    free (a);
}

static int
uring_init (engine_t *e, unsigned depth)
{
    if (depth == 0)
        return -EINVAL;
    uring_t *a = calloc (1, sizeof *a);
    if (!a)
        return -ENOMEM;
    a->depth = depth;
    /* The kernel rounds the SQ ring up to a power of two and makes the CQ
       ring twice that, so the CQ ring holds at least depth entries. */
    int rc = io_uring_queue_init (depth < URING_MAX_SQ ? depth : URING_MAX_SQ, &a->ring, 0);
    if (rc < 0) {
        free (a);
        return rc;              /* -EPERM/-ENOSYS: io_uring disabled or filtered */
    }
    a->maxevents = a->ring.cq.ring_entries;
    a->cqes = calloc (a->maxevents, sizeof *a->cqes);
    a->events = calloc (a->maxevents, sizeof *a->events);
    if (!a->cqes || !a->events) {
        io_uring_queue_exit (&a->ring);
        uring_free (a);
        return -ENOMEM;
    }
    e->data = a;
    return 0;
}

/* Hands everything in the SQ ring to the kernel.  Returns the number
   submitted or -errno.  io_uring_enter fails only on a broken ring or a
   CQ overflow, which the depth bound rules out; the SQEs it did not take
   then stay in the ring. */
static int
uring_submit (uring_t *a)
{
    unsigned done = 0;
    int rc = 0;
    while (done < a->nqueued) {
        rc = io_uring_submit (&a->ring);
        if (rc == -EINTR || rc == -EAGAIN)
            continue;
        if (rc <= 0)
            break;              /* 0: nothing left in the ring, cannot happen */
        done += (unsigned) rc;
    }
    a->nqueued = 0;
    a->inflight += done;        /* what the kernel took is in flight, error or not */
    return rc < 0 ? rc : (int) done;
}

static int
uring_queue (engine_t *e, io_unit_t *u)
{
    uring_t *a = e->data;
    if (a->inflight + a->nqueued >= a->depth)
        return -EBUSY;
    struct io_uring_sqe *sqe = io_uring_get_sqe (&a->ring);
    if (!sqe) {
        /* Only when depth exceeds the largest SQ ring. */
        int rc = uring_submit (a);
        if (rc < 0)
            return rc;
        a->early += (unsigned) rc;
        sqe = io_uring_get_sqe (&a->ring);
        if (!sqe)
            return -EBUSY;
    }
    if (u->dir == IO_READ)
        io_uring_prep_read (sqe, u->fd, u->buf, u->len, u->offset);
    else
        io_uring_prep_write (sqe, u->fd, u->buf, u->len, u->offset);
    io_uring_sqe_set_data (sqe, u);
    a->nqueued++;
    return 0;
}

static int
uring_commit (engine_t *e)
{
    uring_t *a = e->data;
    unsigned early = a->early;
    a->early = 0;
    if (a->nqueued == 0)
        return (int) early;
    int rc = uring_submit (a);
    return rc < 0 ? rc : rc + (int) early;
}

static int
uring_getevents (engine_t *e, unsigned min, unsigned max, uint64_t timeout_ns)
{
    uring_t *a = e->data;
    a->nevents = 0;
    if (max > a->maxevents)
        max = a->maxevents;
    if (min > max)
        min = max;
    if (min > 0 && io_uring_cq_ready (&a->ring) < min) {
        struct __kernel_timespec ts = {
            .tv_sec = (long long) (timeout_ns / 1000000000ull),
            .tv_nsec = (long long) (timeout_ns % 1000000000ull) };
        struct io_uring_cqe *cqe;
        int rc;
        do
            rc = io_uring_wait_cqes (&a->ring, &cqe, min, &ts, NULL);
        while (rc == -EINTR);
        /* -ETIME: fewer than min by the deadline; take what there is. */
        if (rc < 0 && rc != -ETIME)
            return rc;
    }
    unsigned n = io_uring_peek_batch_cqe (&a->ring, a->cqes, max);
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        struct io_uring_cqe *cqe = a->cqes[i];
        /* liburing's own timeout, on kernels without IORING_FEAT_EXT_ARG. */
        if (cqe->user_data == LIBURING_UDATA_TIMEOUT)
            continue;
        io_unit_t *u = io_uring_cqe_get_data (cqe);
        u->res = cqe->res;
        a->events[k++] = u;
    }
    io_uring_cq_advance (&a->ring, n);
    a->inflight -= k < a->inflight ? k : a->inflight;
    a->nevents = k;
    return (int) k;
}

static io_unit_t *
uring_event (engine_t *e, unsigned i)
{
    uring_t *a = e->data;
    return a->events[i];
}

static void
uring_cleanup (engine_t *e)
{
    uring_t *a = e->data;
    if (!a)
        return;
    /* Closing the ring does not wait for I/O in flight, which would still
       land in buffers the worker frees next: reap it first, as io_destroy
       does for libaio. */
    while (a->inflight > 0) {
        struct io_uring_cqe *cqe;
        int rc = io_uring_wait_cqe (&a->ring, &cqe);
        if (rc == -EINTR)
            continue;
        if (rc < 0)
            break;
        if (cqe->user_data != LIBURING_UDATA_TIMEOUT)
            a->inflight--;
        io_uring_cqe_seen (&a->ring, cqe);
    }
    io_uring_queue_exit (&a->ring);
    uring_free (a);
    e->data = NULL;
}

const engine_ops_t engine_io_uring_ops = {
    .name = "io_uring",
    .unavailable_hint = "io_uring is off on this host: kernel.io_uring_disabled or a seccomp "
                        "filter; use ioengine=libaio",
    .init = uring_init,
    .queue = uring_queue,
    .commit = uring_commit,
    .getevents = uring_getevents,
    .event = uring_event,
    .cleanup = uring_cleanup,
};
