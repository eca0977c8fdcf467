/*  engine_pvsync.c: fio's pvsync and pvsync2, preadv/pwritev and
    preadv2/pwritev2 with one buffer each, one I/O at a time, complete when
    commit returns as psync's.  pvsync2 passes no flags (fio's hipri and
    nowait are not taken by the parser), so both issue what fio issues for
    a job without them: measured on fio 3.33, one preadv or preadv2(...,
    0) per I/O. */
#define _GNU_SOURCE
#include "engine_sync.h"

#include <errno.h>
#include <sys/uio.h>

static void
finish (io_unit_t *u, ssize_t r)
{
    u->res = r < 0 ? -(int64_t) errno : (int64_t) r;
}

static void
pvsync_do (sync_queue_t *q, io_unit_t *u)
{
    (void) q;
    struct iovec iov = { u->buf, u->len };
    ssize_t r;
    do
        r = u->dir == IO_READ ? preadv (u->fd, &iov, 1, (off_t) u->offset)
                              : pwritev (u->fd, &iov, 1, (off_t) u->offset);
    while (r < 0 && errno == EINTR);
    finish (u, r);
}

static void
pvsync2_do (sync_queue_t *q, io_unit_t *u)
{
    (void) q;
    struct iovec iov = { u->buf, u->len };
    ssize_t r;
    do
        r = u->dir == IO_READ ? preadv2 (u->fd, &iov, 1, (off_t) u->offset, 0)
                              : pwritev2 (u->fd, &iov, 1, (off_t) u->offset, 0);
    while (r < 0 && errno == EINTR);
    finish (u, r);
}

static int
pvsync_commit (engine_t *e)
{
    return sync_commit (e, pvsync_do, true);
}

static int
pvsync2_commit (engine_t *e)
{
    return sync_commit (e, pvsync2_do, true);
}

const engine_ops_t engine_pvsync_ops = {
    .name = "pvsync",
    .completes_at_commit = true,
    .one_at_a_time = true,
    .init = sync_init,
    .queue = sync_queue,
    .commit = pvsync_commit,
    .getevents = sync_getevents,
    .event = sync_event,
    .cleanup = sync_cleanup,
};

const engine_ops_t engine_pvsync2_ops = {
    .name = "pvsync2",
    .completes_at_commit = true,
    .one_at_a_time = true,
    .init = sync_init,
    .queue = sync_queue,
    .commit = pvsync2_commit,
    .getevents = sync_getevents,
    .event = sync_event,
    .cleanup = sync_cleanup,
};
